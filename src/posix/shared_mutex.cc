#include "posix/shared_mutex.h"

#include <cerrno>

namespace rastrace::posix {

void InitSharedMutex(pthread_mutex_t& mutex) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&mutex, &attr);
  pthread_mutexattr_destroy(&attr);
}

SharedLock::SharedLock(pthread_mutex_t& mutex) : mutex_(mutex) {
  // The data these mutexes guard is only ever appended to, so it stays usable after a holder
  // died: mark the mutex consistent and go on.
  if (pthread_mutex_lock(&mutex_) == EOWNERDEAD) pthread_mutex_consistent(&mutex_);
}

SharedLock::~SharedLock() {
  pthread_mutex_unlock(&mutex_);
}

}  // namespace rastrace::posix
