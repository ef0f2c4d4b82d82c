// CANN splits the ACL declarations over several headers; here they all live in acl.h.
#pragma once

#include "acl/acl.h"
