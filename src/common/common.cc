// Anchors the common library; everything in it is header-only so far.
#include "common/result.h"
