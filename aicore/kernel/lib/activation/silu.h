// "activation/silu.h": Silu is declared with Swish in activation/swish.h.
#pragma once

#include "aicore/kernel/lib/activation/swish.h"
