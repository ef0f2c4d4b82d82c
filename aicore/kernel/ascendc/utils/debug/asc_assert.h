// The documented include path utils/debug/asc_assert.h: assert, ascendc_assert, ASSERT, Trap.
#pragma once

#include "aicore/kernel/debug/assert.h"
