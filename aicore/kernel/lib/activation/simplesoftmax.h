// "activation/simplesoftmax.h": SimpleSoftMax is declared with the SoftMax family in
// activation/softmax.h.
#pragma once

#include "aicore/kernel/lib/activation/softmax.h"
