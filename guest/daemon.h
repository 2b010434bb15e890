/* State of one daemon run, shared by daemon.c (setup, cleanup, RESULT),
 * serve.c (the requests) and kids.c (the processes that trigger them). */
#ifndef LAB_DAEMON_H
#define LAB_DAEMON_H

#include <limits.h>
#include <sys/types.h>

#include "packet.h"

#define NKEYS 2
#define MAX_KIDS 8
#define MAX_TOKENS 16

struct lab {
	const char *prog;
	const struct reader *reader;
	int step;
	int timeout_ms;
	char dir[256];
	char sub[NKEYS][264];		/* dir/a, dir/b */
	int sub_mounted[NKEYS];

	int pipe_r, pipe_w, ioctl_fd;
	int autofs_mounted;
	unsigned int root_dev;
	unsigned long long root_ino;

	pid_t daemon_pid;
	pid_t kids[MAX_KIDS];
	int nkids;

	autofs_wqt_t answered[MAX_TOKENS];
	int n_answered;
	int requests;		/* packets read (or attempted) so far */
	size_t queued_size;	/* what the kernel wrote for request 1 */
	size_t read_size;	/* what the strategy took */
	size_t left_after;	/* bytes left in the pipe after a read (stream pipes) */

	int setup_failed;	/* exit 2 instead of 1 */
	char detail[256];
};

extern const char *const lab_keys[NKEYS];

/* serve.c: lookups of every key, then expire them; 0 ok, -1 broken */
int serve(struct lab *L);

/* kids.c */
pid_t spawn_client(struct lab *L, const char *path);
pid_t spawn_expirer(struct lab *L);
/* Wait up to ms for a kid; 0 with *status set, or -1 if it had to be killed. */
int kid_wait(struct lab *L, pid_t pid, int ms, int *status);
/* Wait briefly for every kid, then SIGKILL what is left. */
void kids_reap_all(struct lab *L, int grace_ms);
void describe_status(const char *who, int status, char *out, size_t len);

/* set detail (printf-style) unless one is already set: the first reason wins */
void lab_fail(struct lab *L, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
