// "activation/softmaxflashv2.h": SoftmaxFlashV2 is declared with the SoftMax family in
// activation/softmax.h.
#pragma once

#include "aicore/kernel/lib/activation/softmax.h"
