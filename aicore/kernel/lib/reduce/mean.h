// "reduce/mean.h": Mean is declared with Sum in reduce/sum.h.
#pragma once

#include "aicore/kernel/lib/reduce/sum.h"
