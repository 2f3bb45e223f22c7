// UsableCores: sched_getaffinity where the platform has it, else the
// standard library's count.
#include "base/cores.h"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace optrace {

unsigned UsableCores() {
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace optrace
