// SPDX-License-Identifier: GPL-2.0
/*
 * kdapl_dev_test: the ABI of /dev/kdapl, checked from user space.
 *
 *   kdapl_dev_test IA_NAME
 *
 * Runs in the test VM with kdapl loaded and IA_NAME present.  Each case
 * prints "ok N name" or "not ok N name: why" (TAP); the exit status is 0
 * only if every case passed.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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

static const char *ia_name;
static int failures;
static int cases;

/* Print why a check failed; returns -1 for the test's return. */
#define FAIL(...) fail_msg(__func__, __LINE__, __VA_ARGS__)

static int fail_msg(const char *fn, int line, const char *fmt, ...)
{
	va_list ap;

	printf("# %s:%d: ", fn, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return -1;
}

/* One ioctl; returns -errno or the DAT status in the head. */
static long call(int fd, unsigned long cmd, void *arg, size_t size)
{
	struct kdapl_ioc_head *h = arg;

	h->size = size;
	h->status = 0xdeadbeef;
	if (ioctl(fd, cmd, arg))
		return -errno;
	return h->status;
}

#define CALL(fd, nr, s) call(fd, KDAPL_IOC_##nr, &(s), sizeof(s))

/* The status of an error of a type and subtype, as the kernel gives it. */
#define ERR(type, sub) ((long)(DAT_CLASS_ERROR | (type) | (sub)))

static int dev_open(void)
{
	struct kdapl_hello hello = { .abi_version = KDAPL_ABI_VERSION };
	int fd = open("/dev/kdapl", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (CALL(fd, HELLO, hello) != DAT_SUCCESS) {
		close(fd);
		return -1;
	}
	return fd;
}

struct ring {
	struct kdapl_ring_head *hdr;
	struct kdapl_uevent *ev;
	size_t size;
};

static int ring_map(int fd, struct ring *r, __u64 size, __u64 offset)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       offset);

	if (p == MAP_FAILED)
		return -1;
	r->hdr = p;
	r->ev = (void *)((char *)p + KDAPL_RING_EVENTS);
	r->size = size;
	return 0;
}

/* Take the next event, as the shim's dat_evd_dequeue() does. */
static int ring_pop(struct ring *r, struct kdapl_uevent *out)
{
	__u32 head = r->hdr->head;
	__u32 tail = __atomic_load_n(&r->hdr->tail, __ATOMIC_ACQUIRE);

	if (head == tail)
		return 0;
	*out = r->ev[head & (r->hdr->entries - 1)];
	__atomic_store_n(&r->hdr->head, head + 1, __ATOMIC_RELEASE);
	return 1;
}

struct ia {
	int fd;
	__u32 ia_id;
	__u32 async_id;
	struct ring async;
};

static int ia_open(int fd, struct ia *ia, __u64 async_cookie)
{
	struct kdapl_ia_open o = { .async_qlen = 8,
				   .async_cookie = async_cookie };
	long ret;

	snprintf(o.name, sizeof(o.name), "%s", ia_name);
	ret = CALL(fd, IA_OPEN, o);
	if (ret != DAT_SUCCESS)
		return FAIL("IA_OPEN: %#lx", ret);
	ia->fd = fd;
	ia->ia_id = o.ia_id;
	ia->async_id = o.async_evd_id;
	if (ring_map(fd, &ia->async, o.async_ring_size,
		     o.async_ring_offset) != 0)
		return FAIL("mmap async: %m");
	return 0;
}

/* ---------------------------------------------------------------- */

static int test_handshake(void)
{
	struct kdapl_hello hello = { .abi_version = KDAPL_ABI_VERSION + 1 };
	struct kdapl_ia_open o = { .async_qlen = 8 };
	int fd = open("/dev/kdapl", O_RDWR);
	long ret;

	if (fd < 0)
		return FAIL("open: %m");
	ret = CALL(fd, IA_OPEN, o);
	if (ret != -EPROTO)
		return FAIL("IA_OPEN before hello: %ld", ret);
	ret = CALL(fd, HELLO, hello);
	if (ret != -EPROTONOSUPPORT)
		return FAIL("wrong ABI: %ld", ret);
	ret = CALL(fd, IA_OPEN, o);
	if (ret != -EPROTO)
		return FAIL("IA_OPEN after a failed hello: %ld", ret);
	hello.abi_version = KDAPL_ABI_VERSION;
	ret = CALL(fd, HELLO, hello);
	if (ret != DAT_SUCCESS)
		return FAIL("hello: %#lx", ret);
	if (hello.event_size != sizeof(struct kdapl_uevent))
		return FAIL("%u",
	      hello.event_size);
	if (hello.max_ia_name != KDAPL_ABI_NAME_MAX)
		return FAIL("%u", hello.max_ia_name);
	close(fd);
	return 0;
}

static int test_malformed(void)
{
	struct {
		struct kdapl_pz_create pz;
		__u8 tail[16];
	} big;
	struct kdapl_pz_create pz = { 0 };
	int fd = dev_open();
	long ret;

	if (fd < 0)
		return FAIL("dev_open");
	ret = call(fd, _IOWR(KDAPL_IOCTL_TYPE, 0x7f, struct kdapl_ioc_head),
		   &pz, sizeof(pz));
	if (ret != -ENOTTY)
		return FAIL("unknown nr: %ld", ret);
	ret = call(fd, _IOWR(KDAPL_IOCTL_TYPE, KDAPL_NR_PZ_CREATE, int),
		   &pz, sizeof(pz));
	if (ret != -ENOTTY)
		return FAIL("wrong encoding: %ld", ret);
	ret = call(fd, KDAPL_IOC_PZ_CREATE, &pz, sizeof(pz) - 4);
	if (ret != -EINVAL)
		return FAIL("short size: %ld", ret);
	ret = call(fd, KDAPL_IOC_PZ_CREATE, &pz, 1 << 20);
	if (ret != -EINVAL)
		return FAIL("huge size: %ld", ret);
	memset(&big, 0, sizeof(big));
	big.tail[3] = 1;
	ret = call(fd, KDAPL_IOC_PZ_CREATE, &big, sizeof(big));
	if (ret != -E2BIG)
		return FAIL("non-zero unknown tail: %ld", ret);
	big.tail[3] = 0;
	ret = call(fd, KDAPL_IOC_PZ_CREATE, &big, sizeof(big));
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA))
		return FAIL("zero tail, no IA: %#lx", ret);
	if (!(ioctl(fd, KDAPL_IOC_PZ_CREATE, (void *)8) == -1 &&
	      errno == EFAULT))
		return FAIL("bad pointer: %m");
	close(fd);
	return 0;
}

static int test_ia(void)
{
	struct kdapl_ia_query q = { 0 };
	struct kdapl_ia_open o = { .async_qlen = 8 };
	struct kdapl_obj_free f = { 0 };
	int fd = dev_open();
	struct ia ia;
	long ret;

	if (fd < 0)
		return FAIL("dev_open");
	snprintf(o.name, sizeof(o.name), "no-such-ia");
	ret = CALL(fd, IA_OPEN, o);
	if (DAT_GET_TYPE(ret) != DAT_PROVIDER_NOT_FOUND)
		return FAIL("%#lx", ret);
	memset(o.name, 'x', sizeof(o.name));
	ret = CALL(fd, IA_OPEN, o);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1))
		return FAIL("unterminated name: %#lx", ret);
	snprintf(o.name, sizeof(o.name), "%s", ia_name);
	o.async_qlen = 0;
	ret = CALL(fd, IA_OPEN, o);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("qlen 0: %#lx", ret);

	if (ia_open(fd, &ia, 0) != 0)
		return FAIL("ia_open");
	q.ia_id = ia.ia_id;
	ret = CALL(fd, IA_QUERY, q);
	if (ret != DAT_SUCCESS)
		return FAIL("query: %#lx", ret);
	if (strncmp(q.adapter_name, ia_name, 3))
		return FAIL("adapter %s",
	      q.adapter_name);
	if (!(q.max_eps > 0 && q.max_evd_qlen > 0))
		return FAIL("%d %d", q.max_eps,
	      q.max_evd_qlen);
	q.ia_id = ia.async_id;
	ret = CALL(fd, IA_QUERY, q);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA))
		return FAIL("query of an EVD id: %#lx", ret);

	f.id = ia.ia_id;
	f.flags = DAT_CLOSE_GRACEFUL_FLAG;
	ret = CALL(fd, IA_CLOSE, f);
	if (ret != DAT_SUCCESS)
		return FAIL("close: %#lx", ret);
	ret = CALL(fd, IA_CLOSE, f);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA))
		return FAIL("second close: %#lx", ret);
	munmap(ia.async.hdr, ia.async.size);
	close(fd);
	return 0;
}

static int test_pz(void)
{
	struct kdapl_pz_create pz = { 0 };
	struct kdapl_obj_free f = { 0 };
	int fd = dev_open();
	struct ia ia;
	long ret;

	if (!(fd >= 0 && ia_open(fd, &ia, 0) == 0))
		return FAIL("set-up");
	pz.ia_id = ia.ia_id;
	if (CALL(fd, PZ_CREATE, pz) != DAT_SUCCESS)
		return FAIL("pz");
	f.id = ia.ia_id;
	f.flags = DAT_CLOSE_GRACEFUL_FLAG;
	ret = CALL(fd, IA_CLOSE, f);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("graceful close with a PZ: %#lx", ret);
	f.id = pz.pz_id;
	f.flags = 0;
	if (CALL(fd, PZ_FREE, f) != DAT_SUCCESS)
		return FAIL("pz free");
	ret = CALL(fd, PZ_FREE, f);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ))
		return FAIL("second free: %#lx", ret);
	f.id = ia.async_id;
	ret = CALL(fd, PZ_FREE, f);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ))
		return FAIL("free of an EVD id as a PZ: %#lx", ret);
	/* Objects left behind go with the file. */
	if (CALL(fd, PZ_CREATE, pz) != DAT_SUCCESS)
		return FAIL("pz");
	close(fd);
	return 0;
}

static int evd_create(int fd, struct ia *ia, int qlen, __u64 cookie,
		      __u32 *id, struct ring *r)
{
	struct kdapl_evd_create c = {
		.ia_id = ia->ia_id, .qlen = qlen, .cookie = cookie,
		.flags = DAT_EVD_SOFTWARE_FLAG,
	};
	long ret = CALL(fd, EVD_CREATE, c);

	if (ret != DAT_SUCCESS)
		return FAIL("EVD_CREATE: %#lx", ret);
	if (c.entries < (__u32)qlen)
		return FAIL("%u entries", c.entries);
	*id = c.evd_id;
	if (ring_map(fd, r, c.ring_size, c.ring_offset) != 0)
		return FAIL("mmap: %m");
	if (r->hdr->entries != c.entries)
		return FAIL("%u", r->hdr->entries);
	return 0;
}

static long post_se(int fd, __u32 id, __u64 v)
{
	struct kdapl_evd_post_se p = { .evd_id = id, .pointer = v };

	return CALL(fd, EVD_POST_SE, p);
}

static long evd_wait(int fd, __u32 id, int threshold, __u32 us,
		     __u32 *count)
{
	struct kdapl_evd_wait w = { .evd_id = id, .threshold = threshold,
				    .timeout_us = us };
	long ret = CALL(fd, EVD_WAIT, w);

	if (count)
		*count = w.count;
	return ret;
}

static int test_ring(void)
{
	struct kdapl_uevent ev;
	int fd = dev_open();
	__u32 id, n, i;
	struct ring r;
	struct ia ia;
	long ret;

	if (!(fd >= 0 && ia_open(fd, &ia, 0xa5) == 0))
		return FAIL("set-up");
	if (evd_create(fd, &ia, 4, 0xc0ffee, &id, &r) != 0)
		return FAIL("evd");
	for (i = 0; i < 3; i++)
		if (post_se(fd, id, 100 + i) != DAT_SUCCESS)
			return FAIL("post %u", i);
	if (r.hdr->tail != 3)
		return FAIL("tail %u", r.hdr->tail);
	for (i = 0; i < 3; i++) {
		if (ring_pop(&r, &ev) != 1)
			return FAIL("event %u", i);
		if (ev.number != DAT_SOFTWARE_EVENT)
			return FAIL("%#x", ev.number);
		if (ev.data[0] != 100 + i)
			return FAIL("%llu",
		      (unsigned long long)ev.data[0]);
		if (ev.evd_cookie != 0xc0ffee)
			return FAIL("cookie %#llx",
		      (unsigned long long)ev.evd_cookie);
	}
	if (ring_pop(&r, &ev) != 0)
		return FAIL("empty");
	ret = evd_wait(fd, id, 1, 20000, &n);
	if (!(ret == DAT_TIMEOUT_EXPIRED && n == 0))
		return FAIL("%#lx %u", ret, n);
	ret = evd_wait(fd, id, 0, 0, NULL);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_PARAMETER)
		return FAIL("threshold 0");
	ret = evd_wait(fd, id, 5, 0, NULL);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_PARAMETER)
		return FAIL("threshold > qlen");

	/* Fill the ring: the next event is lost, and that is an event. */
	for (i = 0; i < r.hdr->entries; i++)
		if (post_se(fd, id, i) != DAT_SUCCESS)
			return FAIL("fill %u", i);
	ret = evd_wait(fd, id, r.hdr->entries, 0, &n);
	if (!(ret == DAT_SUCCESS && n == r.hdr->entries))
		return FAIL("%#lx %u", ret, n);
	post_se(fd, id, 999);
	if (r.hdr->overflows != 1)
		return FAIL("overflows %u", r.hdr->overflows);
	ret = evd_wait(fd, ia.async_id, 1, 1000000, NULL);
	if (ret != DAT_SUCCESS)
		return FAIL("async wait %#lx", ret);
	if (ring_pop(&ia.async, &ev) != 1)
		return FAIL("async event");
	if (ev.number != DAT_ASYNC_ERROR_EVD_OVERFLOW)
		return FAIL("%#x", ev.number);
	if (!(ev.cookie == 0xc0ffee && ev.evd_cookie == 0xa5))
		return FAIL("cookies %#llx %#llx", (unsigned long long)ev.cookie,
	      (unsigned long long)ev.evd_cookie);

	/* A head the process wrote as garbage confuses only itself. */
	r.hdr->head = 0x80000000u;
	if (post_se(fd, id, 7) != DAT_SUCCESS)
		return FAIL("post after garbage");
	close(fd);
	if (r.hdr->entries != 4)
		return FAIL("ring still mapped after close");
	munmap(r.hdr, r.size);
	munmap(ia.async.hdr, ia.async.size);
	return 0;
}

struct waker {
	int fd;
	__u32 id;
};

static void *waker_fn(void *p)
{
	struct waker *w = p;

	usleep(50000);
	post_se(w->fd, w->id, 42);
	return NULL;
}

static int test_wait_wakeup(void)
{
	struct timespec t0, t1;
	struct kdapl_uevent ev;
	struct kdapl_obj_free f = { 0 };
	struct waker w;
	pthread_t th;
	struct ring r;
	struct ia ia;
	__u32 id, n;
	long ret, ms;
	int fd = dev_open();

	if (!(fd >= 0 && ia_open(fd, &ia, 0) == 0))
		return FAIL("set-up");
	if (evd_create(fd, &ia, 8, 1, &id, &r) != 0)
		return FAIL("evd");
	w.fd = fd;
	w.id = id;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_create(&th, NULL, waker_fn, &w);
	ret = evd_wait(fd, id, 1, DAT_TIMEOUT_INFINITE, &n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(th, NULL);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000000;
	if (!(ret == DAT_SUCCESS && n == 1))
		return FAIL("%#lx %u", ret, n);
	if (ms < 40)
		return FAIL("woke after %ld ms", ms);
	if (!(ring_pop(&r, &ev) == 1 && ev.data[0] == 42))
		return FAIL("event");

	/* Freeing the EVD does not take the mapping away. */
	f.id = id;
	if (CALL(fd, EVD_FREE, f) != DAT_SUCCESS)
		return FAIL("free");
	if (CALL(fd, EVD_FREE, f) !=
	      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST))
		return FAIL("second free");
	if (r.hdr->entries != 8)
		return FAIL("mapping");
	ret = post_se(fd, id, 1);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_HANDLE)
		return FAIL("post to freed");
	f.id = ia.async_id;
	ret = CALL(fd, EVD_FREE, f);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("free async: %#lx",
	      ret);
	munmap(r.hdr, r.size);
	close(fd);
	return 0;
}

static int test_mmap_rules(void)
{
	struct kdapl_evd_create c = { .qlen = 4,
				      .flags = DAT_EVD_SOFTWARE_FLAG };
	int fd = dev_open();
	struct ia ia;
	void *p;

	if (!(fd >= 0 && ia_open(fd, &ia, 0) == 0))
		return FAIL("set-up");
	c.ia_id = ia.ia_id;
	if (CALL(fd, EVD_CREATE, c) != DAT_SUCCESS)
		return FAIL("evd");
	p = mmap(NULL, c.ring_size * 2, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, c.ring_offset);
	if (!(p == MAP_FAILED && errno == EINVAL))
		return FAIL("too long");
	p = mmap(NULL, c.ring_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd,
		 c.ring_offset);
	if (!(p == MAP_FAILED && errno == EINVAL))
		return FAIL("private");
	p = mmap(NULL, c.ring_size, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_SHARED, fd, c.ring_offset);
	if (p != MAP_FAILED)
		return FAIL("executable");
	p = mmap(NULL, c.ring_size, PROT_READ, MAP_SHARED, fd,
		 (off_t)ia.ia_id << 12);
	if (!(p == MAP_FAILED && errno == EINVAL))
		return FAIL("an IA id is no ring");
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)9999 << 12);
	if (!(p == MAP_FAILED && errno == EINVAL))
		return FAIL("no such id");
	close(fd);
	munmap(ia.async.hdr, ia.async.size);
	return 0;
}

static int test_isolation(void)
{
	struct kdapl_pz_create pz = { 0 };
	struct kdapl_obj_free f = { 0 };
	int fd = dev_open(), fd2 = dev_open();
	struct ia ia;
	pid_t pid;
	int st;

	if (!(fd >= 0 && fd2 >= 0 && ia_open(fd, &ia, 0) == 0))
		return FAIL("set-up");
	pz.ia_id = ia.ia_id;
	if (CALL(fd, PZ_CREATE, pz) != DAT_SUCCESS)
		return FAIL("pz");

	/* Another file: the same ids name nothing. */
	f.id = pz.pz_id;
	if (CALL(fd2, PZ_FREE, f) !=
	      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ))
		return FAIL("other file");
	f.id = ia.ia_id;
	f.flags = DAT_CLOSE_ABRUPT_FLAG;
	if (CALL(fd2, IA_CLOSE, f) !=
	      ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA))
		return FAIL("other file");

	/* A forked child may not use the parent's file at all. */
	pid = fork();
	if (!pid) {
		struct kdapl_obj_free cf = { .id = pz.pz_id };
		void *p;

		if (CALL(fd, PZ_FREE, cf) != -EPERM)
			_exit(1);
		p = mmap(NULL, ia.async.size, PROT_READ, MAP_SHARED, fd,
			 (off_t)ia.async_id << 12);
		if (p != MAP_FAILED || errno != EPERM)
			_exit(2);
		_exit(0);
	}
	if (!(pid > 0 && waitpid(pid, &st, 0) == pid))
		return FAIL("fork");
	if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		return FAIL("child status %#x", st);
	f.id = pz.pz_id;
	f.flags = 0;
	if (CALL(fd, PZ_FREE, f) != DAT_SUCCESS)
		return FAIL("parent unaffected");
	close(fd2);
	close(fd);
	munmap(ia.async.hdr, ia.async.size);
	return 0;
}

static void run(const char *name, int (*fn)(void))
{
	int ret = fn();

	cases++;
	if (ret) {
		failures++;
		printf("not ok %d %s\n", cases, name);
	} else {
		printf("ok %d %s\n", cases, name);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: kdapl_dev_test IA_NAME\n");
		return 2;
	}
	ia_name = argv[1];
	printf("TAP version 13\n1..8\n");
	run("handshake", test_handshake);
	run("malformed", test_malformed);
	run("ia", test_ia);
	run("pz", test_pz);
	run("ring", test_ring);
	run("wait_wakeup", test_wait_wakeup);
	run("mmap_rules", test_mmap_rules);
	run("isolation", test_isolation);
	printf("# kdapl_dev_test: %d passed, %d failed\n", cases - failures,
	       failures);
	return failures ? 1 : 0;
}
