// "activation/simplesoftmax.h": declared with the rest of the SoftMax family in activation/softmax.h.
#pragma once

#include "aicore/kernel/lib/activation/softmax.h"
