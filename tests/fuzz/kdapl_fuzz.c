// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_fuzz: random calls on /dev/kdapl from several processes and
 * threads, valid and malformed.
 *
 *   kdapl_fuzz [-n CALLS] [-p PROCS] [-t THREADS] [-T SECONDS] [-s SEED]
 *              [-R] IA_NAME
 *
 * Each process opens the device and runs THREADS threads that pick an
 * operation from a weighted table: creates and frees of every object
 * with parameters mostly sensible and sometimes not, handles that are
 * stale, of the wrong type or made up, connections between the
 * processes' endpoints, records written into post rings, event rings
 * drained or scribbled on, malformed ioctls (sizes, pointers, commands,
 * reserved fields), mmap, munmap and mremap of rings and of registered
 * memory, a file replaced while calls run on it, waits woken by a signal
 * or by the free of what they wait on, and fork (the child must be
 * refused everything on its parent's file).
 *
 * With KCOV (the debug kernel) the choice of operations is guided by the
 * kdapl code they reach (fuzz_cov.c); without it, or with -R (coverage
 * is still counted, to compare), it is random.
 *
 * The run stops after CALLS ioctls over all processes, or SECONDS.  It
 * fails (exit 1) when the kernel answers outside the ABI: an errno the
 * uAPI does not list, a status that is no DAT_RETURN, a success for a
 * forked child, or a wait that does not return.  Crashes, leaks and
 * lock reports are for the kernel's own checkers to find; the VM test
 * (tests/vm/cases/fuzz.sh) then checks that nothing is left.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dat2/udat.h>
#include <rdma/kdapl_ioctl.h>

#include "fuzz.h"

/* The counters all processes share (a MAP_SHARED page). */
struct fz_shared *fz_sh;
const char *fz_ia_name;
static long fz_max_calls = 20000;
static int fz_seconds = 600;
static time_t fz_deadline;

/* Did the kernel answer outside the ABI? Say so and count it. */
void fz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "kdapl_fuzz[%d]: FAIL: ", getpid());
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	__atomic_add_fetch(&fz_sh->failures, 1, __ATOMIC_RELAXED);
}

bool fz_done(void)
{
	return __atomic_load_n(&fz_sh->calls, __ATOMIC_RELAXED) >=
		       fz_max_calls || time(NULL) >= fz_deadline;
}

/* xorshift64*: a per-thread generator, reproducible from the seed. */
__u64 fz_rand(struct fz_thread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545f4914f6cdd1dULL;
}

__u32 fz_below(struct fz_thread *t, __u32 n)
{
	return n ? fz_rand(t) % n : 0;
}

/* True with probability @pct percent. */
bool fz_chance(struct fz_thread *t, unsigned int pct)
{
	return fz_below(t, 100) < pct;
}

/* A value to put in a size or count field: usually small, sometimes not. */
__u64 fz_num(struct fz_thread *t, __u64 usual)
{
	static const __u64 odd[] = {
		0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x10000,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		0x7fffffffffffffffULL, ~0ULL, ~0ULL - 1,
	};

	if (fz_chance(t, 85))
		return fz_below(t, usual + 1);
	if (fz_chance(t, 70))
		return odd[fz_below(t, ARRAY_SIZE(odd))];
	return fz_rand(t);
}

/* Errnos the uAPI names for a failed ioctl (see struct kdapl_ioc_head). */
static bool fz_errno_ok(int err)
{
	switch (err) {
	case EFAULT: case EINVAL: case E2BIG: case ENOTTY: case EPROTO:
	case EPROTONOSUPPORT: case ENOMEM: case EMFILE: case ENFILE:
	case EINTR:
		return true;
	}
	return false;
}

/* A DAT_RETURN has a known type and no class bits but error/warning. */
static bool fz_status_ok(__u32 status)
{
	__u32 type = DAT_GET_TYPE(status);

	if (status & ~(DAT_CLASS_ERROR | DAT_CLASS_WARNING | DAT_TYPE_MASK |
		       DAT_SUBTYPE_MASK))
		return false;
	return type <= DAT_COMM_NOT_SUPPORTED || type == DAT_NOT_IMPLEMENTED;
}

/**
 * fz_ioctl() - one call, counted and checked against the ABI
 * @t: the calling thread
 * @nr: KDAPL_NR_*
 * @arg: the argument, its head's size already set
 *
 * Return: the DAT status of the head, or -errno.
 */
long fz_ioctl(struct fz_thread *t, unsigned int nr, void *arg)
{
	struct kdapl_ioc_head *h = arg;
	long ret;

	h->status = 0xdeadbeef;
	ret = fz_raw_ioctl(t, t->proc->fd, KDAPL_IOC(nr), arg);
	if (ret)
		return ret;
	if (!fz_status_ok(h->status))
		fz_fail("command %#x: status %#x is no DAT_RETURN", nr,
			h->status);
	if (DAT_GET_TYPE(h->status) == DAT_INTERNAL_ERROR) {
		/* Allowed, but worth a look: say which call. */
		fprintf(stderr, "kdapl_fuzz: command %#x: DAT_INTERNAL_ERROR %#x\n",
			nr, h->status);
		__atomic_add_fetch(&fz_sh->internal, 1, __ATOMIC_RELAXED);
	}
	if (h->status == DAT_SUCCESS)
		__atomic_add_fetch(&fz_sh->successes, 1, __ATOMIC_RELAXED);
	return h->status;
}

/**
 * fz_raw_ioctl() - any ioctl on any descriptor, counted, errno checked
 * @t: the calling thread
 * @fd: the descriptor
 * @cmd: the command, maybe made up
 * @arg: the argument, maybe a bad pointer
 *
 * Return: 0 or -errno.
 */
long fz_raw_ioctl(struct fz_thread *t, int fd, unsigned long cmd, void *arg)
{
	long n;

	n = __atomic_add_fetch(&fz_sh->calls, 1, __ATOMIC_RELAXED);
	t->calls++;
	if (n % 100000 == 0)
		fprintf(stderr, "kdapl_fuzz: %ld calls\n", n);
	if (ioctl(fd, cmd, arg) == 0)
		return 0;
	if (!fz_errno_ok(errno) && !(errno == EBADF && t->proc->fd < 0))
		fz_fail("command %#lx: errno %d (%s) is not in the uAPI", cmd,
			errno, strerror(errno));
	return -errno;
}

static void fz_usage(void)
{
	fprintf(stderr, "usage: kdapl_fuzz [-n CALLS] [-p PROCS] [-t THREADS]\n"
		"                  [-T SECONDS] [-s SEED] [-R] IA_NAME\n");
	exit(2);
}

static void fz_on_signal(int sig)
{
	(void)sig;
}

/* Run the processes; each runs its threads in fz_proc_run(). */
static int fz_spawn(int procs, int threads, __u64 seed)
{
	int i, status, bad = 0;
	pid_t pid;

	for (i = 0; i < procs; i++) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			_exit(fz_proc_run(i, threads, seed + 7919 * i));
	}
	while ((pid = wait(&status)) > 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		fprintf(stderr, "kdapl_fuzz: process %d ended with status %#x\n",
			pid, status);
		bad = 1;
	}
	return bad;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = fz_on_signal };
	__u64 seed = time(NULL);
	int procs = 2, threads = 3, opt, bad;

	while ((opt = getopt(argc, argv, "n:p:t:T:s:R")) != -1) {
		switch (opt) {
		case 'n':
			fz_max_calls = atol(optarg);
			break;
		case 'p':
			procs = atoi(optarg);
			break;
		case 't':
			threads = atoi(optarg);
			break;
		case 'T':
			fz_seconds = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'R':
			fz_cov_guided = false;
			break;
		default:
			fz_usage();
		}
	}
	if (optind + 1 != argc || procs < 1 || threads < 1 ||
	    threads > FZ_MAX_THREADS)
		fz_usage();
	fz_ia_name = argv[optind];
	fz_deadline = time(NULL) + fz_seconds;

	/* SIGUSR1 interrupts waits (no SA_RESTART); SIGPIPE is ignored. */
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	fz_sh = mmap(NULL, sizeof(*fz_sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fz_sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("kdapl_fuzz: seed %llu, %d processes x %d threads, %ld calls or %d s on %s\n",
	       (unsigned long long)seed, procs, threads, fz_max_calls,
	       fz_seconds, fz_ia_name);
	fflush(stdout);
	bad = fz_spawn(procs, threads, seed);
	printf("kdapl_fuzz: %ld calls, %ld succeeded, %ld internal errors,",
	       fz_sh->calls, fz_sh->successes, fz_sh->internal);
	printf(" %ld forks, %ld failures\n", fz_sh->forks, fz_sh->failures);
	printf("kdapl_fuzz: events read: %ld, %ld connection requests,",
	       fz_sh->events, fz_sh->requests);
	printf(" %ld established, %ld DTOs completed\n", fz_sh->established,
	       fz_sh->dto_ok);
	if (fz_sh->cov_threads)
		printf("kdapl_fuzz: KCOV%s: %ld PCs reached, %ld operations kept, %ld replays\n",
		       fz_cov_guided ? "" : " (not guided)", fz_sh->cov_pcs,
		       fz_sh->cov_kept, fz_sh->cov_replays);
	else
		printf("kdapl_fuzz: no KCOV: operations drawn at random\n");
	return bad || fz_sh->failures ? 1 : 0;
}
