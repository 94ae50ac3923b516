/* Read-ahead thread of the stream driver (readahead.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "readahead.h"

enum { IDLE, REQUESTED, DONE };

struct ck_readahead {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* the state changed (both threads wait on it: broadcast) */
    unsigned long forks;    /* the forks this process had when it started (ck_readahead_owned) */
    int fd;                 /* the thread's own duplicate of the caller's descriptor */
    int state, quit;
    uint8_t *dst;
    size_t want;
    ptrdiff_t result;
};

/* Forks this process has been through, counted in the child (os.fork runs the atfork handlers).
 * Not the pid: it can repeat (pid 1 of a new pid namespace, a pid reused). */
static unsigned long forks;
static pthread_once_t forks_counted = PTHREAD_ONCE_INIT;

static void count_fork(void)
{
    forks++;
}

static void count_forks(void)
{
    pthread_atfork(NULL, NULL, count_fork);
}

static void *worker(void *arg)
{
    ck_readahead *ra = arg;
    pthread_mutex_lock(&ra->mu);
    for (;;) {
        /* A submitted read is always done before quitting: the caller waits for it either way. */
        while (ra->state != REQUESTED && !ra->quit)
            pthread_cond_wait(&ra->cv, &ra->mu);
        if (ra->state != REQUESTED)
            break;
        uint8_t *dst = ra->dst;
        size_t want = ra->want;
        pthread_mutex_unlock(&ra->mu);
        ssize_t got;
        do
            got = read(ra->fd, dst, want);
        while (got < 0 && errno == EINTR);
        ptrdiff_t result = got < 0 ? -(ptrdiff_t)errno : (ptrdiff_t)got;
        pthread_mutex_lock(&ra->mu);
        ra->result = result;
        ra->state = DONE;
        pthread_cond_broadcast(&ra->cv);
    }
    pthread_mutex_unlock(&ra->mu);
    return NULL;
}

ck_readahead *ck_readahead_start(int fd)
{
    pthread_once(&forks_counted, count_forks);
    ck_readahead *ra = calloc(1, sizeof *ra);
    if (!ra)
        return NULL;
    /* The thread reads a duplicate (the same open file and offset), never the caller's number:
     * closed and reused while the stream is suspended, that could name a pipe or socket. */
    ra->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    int err = errno;
    if (ra->fd < 0)
        goto fail_dup;
    ra->forks = forks;
    ra->state = IDLE;
    if ((err = pthread_mutex_init(&ra->mu, NULL)) != 0)
        goto fail_mutex;
    if ((err = pthread_cond_init(&ra->cv, NULL)) != 0)
        goto fail_cond;
    /* The new thread inherits this mask: a signal (Ctrl-C) is never taken by the reader. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    err = pthread_create(&ra->thread, NULL, worker, ra);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!err)
        return ra;
    pthread_cond_destroy(&ra->cv);
fail_cond:
    pthread_mutex_destroy(&ra->mu);
fail_mutex:
    close(ra->fd);
fail_dup:
    free(ra);
    errno = err;
    return NULL;
}

void ck_readahead_submit(ck_readahead *ra, uint8_t *dst, size_t n)
{
    pthread_mutex_lock(&ra->mu);
    ra->dst = dst;
    ra->want = n;
    ra->state = REQUESTED;
    pthread_cond_broadcast(&ra->cv);
    pthread_mutex_unlock(&ra->mu);
}

ptrdiff_t ck_readahead_wait(ck_readahead *ra)
{
    pthread_mutex_lock(&ra->mu);
    while (ra->state != DONE)
        pthread_cond_wait(&ra->cv, &ra->mu);
    ra->state = IDLE;
    ptrdiff_t result = ra->result;
    pthread_mutex_unlock(&ra->mu);
    return result;
}

int ck_readahead_owned(const ck_readahead *ra)
{
    return ra->forks == forks;
}

void ck_readahead_stop(ck_readahead *ra)
{
    if (!ck_readahead_owned(ra)) {     /* no thread here, its mutex maybe locked: only what is ours */
        close(ra->fd);
        free(ra);
        return;
    }
    pthread_mutex_lock(&ra->mu);
    ra->quit = 1;
    pthread_cond_broadcast(&ra->cv);
    pthread_mutex_unlock(&ra->mu);
    pthread_join(ra->thread, NULL);
    pthread_cond_destroy(&ra->cv);
    pthread_mutex_destroy(&ra->mu);
    close(ra->fd);
    free(ra);
}
