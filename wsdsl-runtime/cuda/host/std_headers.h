// std_headers.h — the system headers of ws_host_shim.h and emulation.h. Parsing them is about
// half of every host build of an emulated kernel, so `gpu/emulate/` precompiles this file
// once per cache directory and puts it in front of each build (`-include`); the includes of
// the two shims are then no-ops. Keep the list equal to theirs.
#pragma once

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <thread>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>
