// Pre-included before NVSHMEM's headers when NVRTC compiles a kernel that uses them.
//
// Some releases of NVSHMEM's device headers name a few host type traits (std::is_integral,
// std::is_signed, std::is_unsigned). NVRTC has no host <type_traits>, so they are mapped onto
// libcu++'s (CCCL) equivalents, which NVRTC compiles.
#pragma once
#include <cuda/std/type_traits>

namespace std {
using cuda::std::is_integral;
using cuda::std::is_signed;
using cuda::std::is_unsigned;
}  // namespace std
