// Robust, process-shared pthread mutexes living in shared memory: a process that dies holding
// one does not wedge every other user of the stream.
#pragma once

#include <pthread.h>

namespace rastrace::posix {

void InitSharedMutex(pthread_mutex_t& mutex);

class SharedLock {
 public:
  explicit SharedLock(pthread_mutex_t& mutex);
  ~SharedLock();
  SharedLock(const SharedLock&) = delete;
  SharedLock& operator=(const SharedLock&) = delete;

 private:
  pthread_mutex_t& mutex_;
};

}  // namespace rastrace::posix
