/* Read-ahead for the stream driver: one background thread reads the next part
 * of a regular file into the read buffer while the caller scans the part
 * before it, so a file is chunked in about the larger of its read and scan
 * times, not their sum (issue 13, item 3). At most one read is in flight; the
 * caller owns the buffer and must not touch dst[0 .. n-1] of a submitted read
 * until ck_readahead_wait returned. */
#ifndef CHUNKERS_READAHEAD_H
#define CHUNKERS_READAHEAD_H

#include <stddef.h>
#include <stdint.h>

typedef struct ck_readahead ck_readahead;

/* A reader of fd with its thread started, or NULL (errno set) if the thread,
 * a descriptor or memory cannot be had. The thread reads its own duplicate of
 * fd (same file and offset), so the caller may close fd at any time; it blocks
 * every signal: they go to the caller. */
ck_readahead *ck_readahead_start(int fd);

/* Start one read(2) of up to n > 0 bytes into dst. None may be in flight. */
void ck_readahead_submit(ck_readahead *ra, uint8_t *dst, size_t n);

/* Wait for the submitted read: the bytes it read (0: end of file), or -errno
 * (EINTR is retried). */
ptrdiff_t ck_readahead_wait(ck_readahead *ra);

/* Nonzero in the process that started ra; zero in a child forked since (told by
 * a fork count kept with pthread_atfork, as a pid can repeat), which has no
 * reader thread (and maybe a mutex locked by it): there ra must not be used. */
int ck_readahead_owned(const ck_readahead *ra);

/* Let a read in flight finish (the buffer stays the caller's until then),
 * stop and join the thread, close the duplicate, free ra. In a forked child
 * only the duplicate is closed and ra freed (no thread there). */
void ck_readahead_stop(ck_readahead *ra);

#endif
