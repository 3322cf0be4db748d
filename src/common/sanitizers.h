// Whether this build runs under a sanitizer that changes what a program may do (gcc defines
// __SANITIZE_*__, clang answers __has_feature).
#pragma once

#if defined(__SANITIZE_THREAD__)
#define RASTRACE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RASTRACE_TSAN 1
#endif
#endif
