// GM atomic accumulation modes: after SetAtomicAdd<T>() (Max, Min), MTE3 writes to GM combine with
// what is there instead of overwriting, until SetAtomicNone().
#pragma once

#include "aicore/kernel/detail/check.h"

namespace AscendC {

template <typename T>
void SetAtomicAdd() { detail::Core().atomic_mode = 1; }
template <typename T>
void SetAtomicMax() { detail::Core().atomic_mode = 2; }
template <typename T>
void SetAtomicMin() { detail::Core().atomic_mode = 3; }
inline void SetAtomicNone() { detail::Core().atomic_mode = 0; }
inline void DisableDmaAtomic() { detail::Core().atomic_mode = 0; }

}  // namespace AscendC
