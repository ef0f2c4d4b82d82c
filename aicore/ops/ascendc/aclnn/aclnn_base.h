// "aclnn/aclnn_base.h": the descriptor API plus aclnnInit / aclnnFinalize.
#pragma once

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

// Optional; `configPath` nullptr or a JSON file that must exist and parse (161002 otherwise).
// Its op_debug_config is accepted and not acted on: run under AICORE_CHECK for the sanitizer.
// Each may be called once per process; a second aclnnInit returns 161002.
aclnnStatus aclnnInit(const char* configPath);
aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif
