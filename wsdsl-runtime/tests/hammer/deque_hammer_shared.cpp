// deque_hammer_shared.cpp — deque_hammer.cpp with the deque of the builds for several GPUs,
// whose fences' scope follows sharing (cuda/queues/deque.cuh): half the thieves play another GPU's.
#define WSDSL_PES 1
#include "deque_hammer.cpp"
