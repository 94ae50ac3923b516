/* Read-ahead thread of the stream driver (readahead.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "readahead.h"

enum { IDLE, FILLING, ENDED };

struct ck_readahead {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;      /* the state or the bytes read changed (both threads wait on it: broadcast) */
    unsigned long forks;    /* the forks this process had when it started (ck_readahead_owned) */
    int fd;                 /* the thread's own duplicate of the caller's descriptor */
    int state, quit;
    uint8_t *dst;
    size_t want, piece;
    size_t done;            /* bytes of the fill read so far */
    int err;                /* errno of the read that failed, 0 if none */
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
        /* A fill in progress always ends before quitting: the caller waits for its current read. */
        while (ra->state != FILLING && !ra->quit)
            pthread_cond_wait(&ra->cv, &ra->mu);
        if (ra->state != FILLING)
            break;
        /* Pieces until the fill is complete, the file ends or a read fails; the mutex is held only
         * to publish each piece (the caller scans what was published meanwhile). */
        while (ra->done < ra->want && !ra->quit) {
            uint8_t *dst = ra->dst + ra->done;
            size_t want = ra->want - ra->done < ra->piece ? ra->want - ra->done : ra->piece;
            pthread_mutex_unlock(&ra->mu);
            ssize_t got;
            do
                got = read(ra->fd, dst, want);
            while (got < 0 && errno == EINTR);
            int err = got < 0 ? errno : 0;
            pthread_mutex_lock(&ra->mu);
            if (got <= 0) {
                ra->err = err;
                break;
            }
            ra->done += (size_t)got;
            pthread_cond_broadcast(&ra->cv);
        }
        ra->state = ENDED;
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

void ck_readahead_submit(ck_readahead *ra, uint8_t *dst, size_t n, size_t piece)
{
    pthread_mutex_lock(&ra->mu);
    ra->dst = dst;
    ra->want = n;
    ra->piece = piece;
    ra->done = 0;
    ra->err = 0;
    ra->state = FILLING;
    pthread_cond_broadcast(&ra->cv);
    pthread_mutex_unlock(&ra->mu);
}

ptrdiff_t ck_readahead_wait(ck_readahead *ra, size_t seen, int *ended)
{
    pthread_mutex_lock(&ra->mu);
    while (ra->state == FILLING && ra->done <= seen)
        pthread_cond_wait(&ra->cv, &ra->mu);
    ptrdiff_t result = (ptrdiff_t)ra->done;
    *ended = 0;
    if (ra->state == ENDED && ra->err == 0) {
        *ended = 1;
        ra->state = IDLE;
    } else if (ra->state == ENDED && ra->done <= seen) {
        result = -(ptrdiff_t)ra->err;       /* every byte before the failed read was reported */
        *ended = 1;
        ra->state = IDLE;
    }
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
