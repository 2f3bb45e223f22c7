// How many threads a parallel pass should use by default.
#pragma once

namespace optrace {

// The CPUs this process may run on: its affinity mask (taskset, a container's
// cpuset), not every core of the host that std::thread::hardware_concurrency
// reports -- 16 threads on 2 allowed CPUs only add switching. At least 1.
unsigned UsableCores();

}  // namespace optrace
