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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <dat2/udat.h>
#include <dat2/dat_ib_extensions.h>
#include <linux/capability.h>
#include <rdma/kdapl_ioctl.h>

#include "tap.h"

static const char *ia_name;

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

static int dev_open(void)
{
	struct kdapl_ioc_hello hello = { .abi_version = KDAPL_ABI_VERSION };
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
	struct kdapl_ioc_ia_open o = { .async_qlen = 8,
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

/*
 * A library that predates max_command sends a shorter hello: it is taken,
 * and nothing is written past it.  A reserved word that is not zero is
 * refused.
 */
static int test_handshake_sizes(void)
{
	struct {
		struct kdapl_ioc_hello hello;
		__u32 canary[2];
	} old = { .hello.abi_version = KDAPL_ABI_VERSION };
	struct kdapl_ioc_hello hello = { .abi_version = KDAPL_ABI_VERSION,
					 .reserved = 1 };
	size_t size = offsetof(struct kdapl_ioc_hello, max_command);
	int fd = open("/dev/kdapl", O_RDWR);
	long ret;

	if (fd < 0)
		return FAIL("open: %m");
	ret = CALL(fd, HELLO, hello);
	if (ret != -EINVAL)
		return FAIL("hello with reserved set: %ld", ret);
	memset(&old.hello.max_command, 0xa5, 2 * sizeof(__u32));
	memset(old.canary, 0x5a, sizeof(old.canary));
	ret = call(fd, KDAPL_IOC_HELLO, &old.hello, size);
	if (ret != DAT_SUCCESS)
		return FAIL("short hello: %#lx", ret);
	if (old.hello.max_command != 0xa5a5a5a5 ||
	    old.hello.reserved != 0xa5a5a5a5 ||
	    old.canary[0] != 0x5a5a5a5a || old.canary[1] != 0x5a5a5a5a ||
	    old.hello.event_size != sizeof(struct kdapl_uevent))
		return FAIL("short hello wrote past %zu bytes, or not its own",
			    size);
	close(fd);
	return 0;
}

static int test_handshake(void)
{
	struct kdapl_ioc_hello hello = { .abi_version = KDAPL_ABI_VERSION + 1 };
	struct kdapl_ioc_ia_open o = { .async_qlen = 8 };
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
	if (hello.max_command != KDAPL_NR_MAX)
		return FAIL("max_command %u, want %u", hello.max_command,
			    KDAPL_NR_MAX);
	close(fd);
	return test_handshake_sizes();
}

static int test_malformed(void)
{
	struct {
		struct kdapl_ioc_pz_create pz;
		__u8 tail[16];
	} big;
	struct kdapl_ioc_pz_create pz = { 0 };
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
	struct kdapl_ioc_ia_query q = { 0 };
	struct kdapl_ioc_ia_open o = { .async_qlen = 8 };
	struct kdapl_ioc_obj_free f = { 0 };
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
	/* The VMs' links have an MTU of 1500: RoCE's path MTU is 1024. */
	if (q.transport_mtu != 1024)
		return FAIL("transport MTU %u", q.transport_mtu);
	q.reserved = 1;
	ret = CALL(fd, IA_QUERY, q);
	if (ret != -EINVAL)
		return FAIL("non-zero reserved field: %ld", ret);
	q.reserved = 0;
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
	struct kdapl_ioc_pz_create pz = { 0 };
	struct kdapl_ioc_obj_free f = { 0 };
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

static int evd_create_flags(int fd, struct ia *ia, int qlen, __u64 cookie,
			    __u32 flags, __u32 *id, struct ring *r)
{
	struct kdapl_ioc_evd_create c = {
		.ia_id = ia->ia_id, .qlen = qlen, .cookie = cookie,
		.flags = flags,
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

static int evd_create(int fd, struct ia *ia, int qlen, __u64 cookie,
		      __u32 *id, struct ring *r)
{
	return evd_create_flags(fd, ia, qlen, cookie, DAT_EVD_SOFTWARE_FLAG,
				id, r);
}

static long post_se(int fd, __u32 id, __u64 v)
{
	struct kdapl_ioc_evd_post_se p = { .evd_id = id, .pointer = v };

	return CALL(fd, EVD_POST_SE, p);
}

static long evd_wait(int fd, __u32 id, int threshold, __u32 us,
		     __u32 *count)
{
	struct kdapl_ioc_evd_wait w = { .evd_id = id, .threshold = threshold,
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
	if (ret != ERR(DAT_TIMEOUT_EXPIRED, 0) || n != 0)
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
	struct kdapl_ioc_obj_free f = { 0 };
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

static long cno_wait(int fd, __u32 id, __u32 us, __u64 *cookie)
{
	struct kdapl_ioc_cno_wait w = { .cno_id = id, .timeout_us = us };
	long ret = CALL(fd, CNO_WAIT, w);

	*cookie = w.evd_cookie;
	return ret;
}

/* poll() one descriptor without sleeping: its revents. */
static int poll_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 0) < 0)
		return -1;
	return p.revents;
}

struct cno_waiter {
	int fd;
	__u32 id;
	long ret;
	__u64 cookie;
};

static void *cno_waiter_fn(void *p)
{
	struct cno_waiter *w = p;

	w->ret = cno_wait(w->fd, w->id, DAT_TIMEOUT_INFINITE, &w->cookie);
	return NULL;
}

static int test_cno(void)
{
	struct kdapl_ioc_cno_create c = { .flags = KDAPL_CNO_FD };
	struct kdapl_ioc_evd_create e = { .qlen = 4, .cookie = 0xe1,
					  .flags = DAT_EVD_SOFTWARE_FLAG };
	struct kdapl_ioc_obj_free f = { 0 };
	struct cno_waiter w = { 0 };
	struct kdapl_uevent ev;
	__u32 id1, id2, n;
	struct ring r1, r2;
	struct ia ia, ia2;
	pthread_t th;
	__u64 cookie;
	long ret;
	int fd = dev_open();

	if (!(fd >= 0 && ia_open(fd, &ia, 0) == 0))
		return FAIL("set-up");
	c.ia_id = ia.ia_id;
	if (CALL(fd, CNO_CREATE, c) != DAT_SUCCESS || c.fd < 0)
		return FAIL("CNO_CREATE %d", c.fd);
	e.ia_id = ia.ia_id;
	e.cno_id = c.cno_id + 1000;
	if (CALL(fd, EVD_CREATE, e) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO))
		return FAIL("EVD of a wrong CNO");
	e.cno_id = ia.ia_id;
	if (CALL(fd, EVD_CREATE, e) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO))
		return FAIL("EVD of an IA as CNO");
	/* A CNO gathers the EVDs of its own IA only. */
	if (ia_open(fd, &ia2, 0) != 0)
		return FAIL("second IA");
	e.ia_id = ia2.ia_id;
	e.cno_id = c.cno_id;
	if (CALL(fd, EVD_CREATE, e) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO))
		return FAIL("EVD of another IA's CNO");
	munmap(ia2.async.hdr, ia2.async.size);
	f.id = ia2.ia_id;
	f.flags = DAT_CLOSE_ABRUPT_FLAG;
	if (CALL(fd, IA_CLOSE, f) != DAT_SUCCESS)
		return FAIL("close second IA");
	f.flags = 0;
	e.ia_id = ia.ia_id;
	e.cno_id = c.cno_id;
	if (CALL(fd, EVD_CREATE, e) != DAT_SUCCESS)
		return FAIL("EVD of the CNO");
	id1 = e.evd_id;
	if (ring_map(fd, &r1, e.ring_size, e.ring_offset))
		return FAIL("mmap");
	e.cookie = 0xe2;
	if (CALL(fd, EVD_CREATE, e) != DAT_SUCCESS)
		return FAIL("second EVD of the CNO");
	id2 = e.evd_id;
	if (ring_map(fd, &r2, e.ring_size, e.ring_offset))
		return FAIL("mmap");

	/* Not triggered: a wait times out, the descriptor is not readable. */
	ret = cno_wait(fd, c.cno_id, 1000, &cookie);
	if (ret != ERR(DAT_QUEUE_EMPTY, 0))
		return FAIL("idle wait %#lx", ret);
	if (poll_now(c.fd) != 0)
		return FAIL("idle poll %#x", poll_now(c.fd));
	if (post_se(fd, id2, 5) != DAT_SUCCESS)
		return FAIL("post");
	if (poll_now(c.fd) != POLLIN)
		return FAIL("triggered poll %#x", poll_now(c.fd));
	ret = cno_wait(fd, c.cno_id, 0, &cookie);
	if (!(ret == DAT_SUCCESS && cookie == 0xe2))
		return FAIL("wait %#lx %#llx", ret, (unsigned long long)cookie);
	/* Taken: untriggered, though the event is still in the ring. */
	if (cno_wait(fd, c.cno_id, 0, &cookie) != ERR(DAT_QUEUE_EMPTY, 0))
		return FAIL("taken twice");
	if (!(ring_pop(&r2, &ev) == 1 && ev.data[0] == 5))
		return FAIL("event");

	/* A sleeping waiter is woken by the EVD's event. */
	w.fd = fd;
	w.id = c.cno_id;
	pthread_create(&th, NULL, cno_waiter_fn, &w);
	usleep(50000);
	post_se(fd, id1, 6);
	pthread_join(th, NULL);
	if (!(w.ret == DAT_SUCCESS && w.cookie == 0xe1))
		return FAIL("woken %#lx %#llx", w.ret,
			    (unsigned long long)w.cookie);
	ring_pop(&r1, &ev);

	/* An event for a thread waiting on the EVD does not trigger it. */
	{
		struct waker wk = { .fd = fd, .id = id1 };

		pthread_create(&th, NULL, waker_fn, &wk);
		ret = evd_wait(fd, id1, 1, DAT_TIMEOUT_INFINITE, &n);
		pthread_join(th, NULL);
		if (ret != DAT_SUCCESS)
			return FAIL("evd wait %#lx", ret);
		if (cno_wait(fd, c.cno_id, 0, &cookie) !=
		    ERR(DAT_QUEUE_EMPTY, 0))
			return FAIL("triggered under an EVD waiter");
	}

	/* In use by EVDs: cannot be freed. */
	f.id = c.cno_id;
	if (CALL(fd, CNO_FREE, f) !=
	    ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_CNO_IN_USE))
		return FAIL("free in use");
	f.id = id1;
	if (CALL(fd, EVD_FREE, f) != DAT_SUCCESS)
		return FAIL("EVD free");
	f.id = id2;
	if (CALL(fd, EVD_FREE, f) != DAT_SUCCESS)
		return FAIL("EVD free");
	/* The last EVD gone, the CNO is triggered with no EVD (DAT). */
	ret = cno_wait(fd, c.cno_id, 0, &cookie);
	if (!(ret == DAT_SUCCESS && cookie == 0))
		return FAIL("after the last EVD: %#lx %#llx", ret,
			    (unsigned long long)cookie);

	/* Freeing it wakes a waiter, and the descriptor hangs up. */
	w.ret = 0;
	pthread_create(&th, NULL, cno_waiter_fn, &w);
	usleep(50000);
	f.id = c.cno_id;
	if (CALL(fd, CNO_FREE, f) != DAT_SUCCESS)
		return FAIL("free");
	pthread_join(th, NULL);
	if (w.ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO))
		return FAIL("waiter of a freed CNO: %#lx", w.ret);
	if (!(poll_now(c.fd) & POLLHUP))
		return FAIL("freed poll %#x", poll_now(c.fd));
	if (CALL(fd, CNO_FREE, f) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CNO))
		return FAIL("second free");
	f.flags = 1;
	if (CALL(fd, CNO_FREE, f) != -EINVAL)
		return FAIL("free flags");
	c.flags = 2;
	if (CALL(fd, CNO_CREATE, c) != -EINVAL)
		return FAIL("unknown flag");
	munmap(r1.hdr, r1.size);
	munmap(r2.hdr, r2.size);
	munmap(ia.async.hdr, ia.async.size);
	close(c.fd);
	/* A CNO still there and its descriptor go with the file. */
	c.flags = KDAPL_CNO_FD;
	if (CALL(fd, CNO_CREATE, c) != DAT_SUCCESS)
		return FAIL("CNO_CREATE again");
	close(fd);
	if (poll_now(c.fd) != POLLHUP)
		return FAIL("after close %#x", poll_now(c.fd));
	close(c.fd);
	return 0;
}

static int test_evd_poll(void)
{
	struct kdapl_ioc_evd_fd p = { 0 };
	struct kdapl_ioc_obj_free f = { 0 };
	struct pollfd pfd = { .events = POLLIN };
	struct kdapl_uevent ev;
	struct waker wk;
	pthread_t th;
	struct ring r;
	struct ia ia;
	__u32 id;
	int fd = dev_open();

	if (!(fd >= 0 && ia_open(fd, &ia, 0) == 0))
		return FAIL("set-up");
	if (evd_create(fd, &ia, 4, 3, &id, &r) != 0)
		return FAIL("evd");
	p.evd_id = id + 1000;
	if (CALL(fd, EVD_FD, p) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST))
		return FAIL("fd of a wrong EVD");
	p.evd_id = id;
	if (CALL(fd, EVD_FD, p) != DAT_SUCCESS || p.fd < 0)
		return FAIL("EVD_FD");
	if (!(fcntl(p.fd, F_GETFD) & FD_CLOEXEC))
		return FAIL("not close-on-exec");
	if (poll_now(p.fd) != 0)
		return FAIL("empty %#x", poll_now(p.fd));
	/* poll() sleeps until the event comes. */
	wk.fd = fd;
	wk.id = id;
	pthread_create(&th, NULL, waker_fn, &wk);
	pfd.fd = p.fd;
	if (poll(&pfd, 1, 5000) != 1 || pfd.revents != POLLIN)
		return FAIL("poll woke with %#x", pfd.revents);
	pthread_join(th, NULL);
	if (!(ring_pop(&r, &ev) == 1 && ev.data[0] == 42))
		return FAIL("event");
	if (poll_now(p.fd) != 0)
		return FAIL("drained %#x", poll_now(p.fd));
	f.id = id;
	if (CALL(fd, EVD_FREE, f) != DAT_SUCCESS)
		return FAIL("free");
	if (!(poll_now(p.fd) & POLLHUP))
		return FAIL("freed %#x", poll_now(p.fd));
	close(p.fd);
	munmap(r.hdr, r.size);
	close(fd);
	return 0;
}

/* The lowest free descriptor number: where a new fd would land. */
static int next_fd(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

/*
 * A command that makes a descriptor installs it only once its reply is
 * written: with the argument in a read-only page the ioctl fails with
 * EFAULT and no descriptor appears in the process.
 */
static int test_fd_copyout(void)
{
	struct kdapl_ioc_evd_fd *p;
	struct kdapl_ioc_cno_create *c;
	struct ring r;
	struct ia ia;
	__u32 id;
	int fd = dev_open(), before;
	long pg = sysconf(_SC_PAGESIZE);
	char *page;

	if (!(fd >= 0 && ia_open(fd, &ia, 0) == 0))
		return FAIL("set-up");
	if (evd_create(fd, &ia, 4, 3, &id, &r) != 0)
		return FAIL("evd");
	page = mmap(NULL, pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return FAIL("mmap: %m");
	p = (void *)page;
	c = (void *)(page + 256);
	*p = (struct kdapl_ioc_evd_fd){ .head.size = sizeof(*p),
					.evd_id = id };
	*c = (struct kdapl_ioc_cno_create){ .head.size = sizeof(*c),
					    .ia_id = ia.ia_id,
					    .flags = KDAPL_CNO_FD };
	if (mprotect(page, pg, PROT_READ))
		return FAIL("mprotect: %m");
	before = next_fd();
	if (!(ioctl(fd, KDAPL_IOC_EVD_FD, p) == -1 && errno == EFAULT))
		return FAIL("EVD_FD on a read-only reply: %m");
	if (next_fd() != before)
		return FAIL("EVD_FD left descriptor %d", before);
	if (!(ioctl(fd, KDAPL_IOC_CNO_CREATE, c) == -1 && errno == EFAULT))
		return FAIL("CNO_CREATE on a read-only reply: %m");
	if (next_fd() != before)
		return FAIL("CNO_CREATE left descriptor %d", before);
	munmap(page, pg);
	munmap(r.hdr, r.size);
	munmap(ia.async.hdr, ia.async.size);
	close(fd);
	return 0;
}

static int test_mmap_rules(void)
{
	struct kdapl_ioc_evd_create c = { .qlen = 4,
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

/*
 * The commands added after the first ABI: another file's ids name
 * nothing, and malformed arguments fail the call itself.
 */
static int isolation_later_calls(int fd, int fd2, struct ia *ia)
{
	struct kdapl_ioc_evd_modify m = { .evd_id = ia->async_id,
					  .set = KDAPL_EVD_UNWAITABLE };
	struct kdapl_ioc_lmr_sync ls = { .ia_id = ia->ia_id };
	struct kdapl_ioc_cr_handoff h = { .cr_id = 1, .conn_qual = 1 };
	struct kdapl_ioc_psp_create pa = { .ia_id = ia->ia_id,
					       .evd_id = ia->async_id };
	struct kdapl_ioc_ep_connect cc = { .ep_id = ia->ia_id };

	if (CALL(fd2, EP_COMMON_CONNECT, cc) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP))
		return FAIL("other file: common connect");
	cc.conn_qual = 1;
	if (CALL(fd, EP_COMMON_CONNECT, cc) != -EINVAL)
		return FAIL("common connect with a qualifier");
	if (CALL(fd2, EVD_MODIFY, m) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST) ||
	    CALL(fd2, LMR_SYNC, ls) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA) ||
	    CALL(fd2, PSP_CREATE_ANY, pa) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA) ||
	    CALL(fd2, CR_HANDOFF, h) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR))
		return FAIL("other file: later commands");
	m.set = 1U << 7;
	if (CALL(fd, EVD_MODIFY, m) != -EINVAL)
		return FAIL("unknown EVD state bit");
	m.set = KDAPL_EVD_DISABLED;
	m.clear = KDAPL_EVD_DISABLED;
	if (CALL(fd, EVD_MODIFY, m) != -EINVAL)
		return FAIL("EVD state bit set and cleared");
	ls.flags = 2;
	if (CALL(fd, LMR_SYNC, ls) != -EINVAL)
		return FAIL("unknown sync flag");
	h.reserved = 1;
	if (CALL(fd, CR_HANDOFF, h) != -EINVAL)
		return FAIL("handoff reserved field");
	/* The async EVD takes no connection requests. */
	if (CALL(fd, PSP_CREATE_ANY, pa) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_CR))
		return FAIL("PSP on the async EVD");
	return 0;
}

static int test_isolation(void)
{
	struct kdapl_ioc_pz_create pz = { 0 };
	struct kdapl_ioc_obj_free f = { 0 };
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
	if (isolation_later_calls(fd, fd2, &ia))
		return -1;

	/* A forked child may not use the parent's file at all. */
	pid = fork();
	if (!pid) {
		struct kdapl_ioc_obj_free cf = { .id = pz.pz_id };
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

/* The process's pinned memory (pinned_vm), in KiB. */
static long vm_pin_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Pages all user LMRs pin, by the module's count. */
static long module_pinned(void)
{
	FILE *f = fopen("/sys/kernel/debug/kdapl/user_pinned_pages", "r");
	long n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

static int set_pin_cap_mb(unsigned int mb)
{
	FILE *f = fopen("/sys/module/kdapl/parameters/user_pin_max_mb", "w");

	if (!f)
		return -1;
	fprintf(f, "%u\n", mb);
	return fclose(f);
}

static long lmr_create(int fd, struct ia *ia, __u32 pz_id, void *addr,
		       __u64 len, __u32 priv, struct kdapl_ioc_lmr_create *c)
{
	memset(c, 0, sizeof(*c));
	c->ia_id = ia->ia_id;
	c->pz_id = pz_id;
	c->addr = (uintptr_t)addr;
	c->length = len;
	c->privileges = priv;
	return CALL(fd, LMR_CREATE, *c);
}

static long obj_free(int fd, unsigned long cmd, __u32 id)
{
	struct kdapl_ioc_obj_free f = { .id = id };

	return call(fd, cmd, &f, sizeof(f));
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* One side of a connection: its file, IA, PZ, EVDs and EP. */
struct side {
	int fd;
	struct ia ia;
	__u32 pz_id, conn_id, cr_id, ep_id, psp_id, dto_id;
	struct ring conn, cr, dto;
	__u8 addr[128];
};

static int side_open_dto(struct side *sd, __u64 cookie, int dto_qlen)
{
	struct kdapl_ioc_ep_create e = { 0 };
	struct kdapl_ioc_pz_create pz = { 0 };
	struct kdapl_ioc_ia_query q = { 0 };
	struct kdapl_ioc_evd_create c = { 0 };
	struct kdapl_ioc_obj_free f = { 0 };

	memset(sd, 0, sizeof(*sd));
	sd->fd = dev_open();
	if (sd->fd < 0 || ia_open(sd->fd, &sd->ia, 0))
		return FAIL("open");
	q.ia_id = sd->ia.ia_id;
	if (CALL(sd->fd, IA_QUERY, q) != DAT_SUCCESS)
		return FAIL("query");
	memcpy(sd->addr, q.addr, sizeof(sd->addr));
	pz.ia_id = sd->ia.ia_id;
	if (CALL(sd->fd, PZ_CREATE, pz) != DAT_SUCCESS)
		return FAIL("pz");
	sd->pz_id = pz.pz_id;
	if (evd_create_flags(sd->fd, &sd->ia, 8, cookie | 0xc,
			     DAT_EVD_CONNECTION_FLAG, &sd->conn_id, &sd->conn))
		return -1;
	if (evd_create_flags(sd->fd, &sd->ia, 8, cookie | 0xd,
			     DAT_EVD_CR_FLAG, &sd->cr_id, &sd->cr))
		return -1;
	/* Connection requests may be merged with completion streams. */
	c.ia_id = sd->ia.ia_id;
	c.qlen = 8;
	c.flags = DAT_EVD_CR_FLAG | DAT_EVD_DTO_FLAG;
	if (CALL(sd->fd, EVD_CREATE, c) != DAT_SUCCESS)
		return FAIL("CR merged with DTO");
	f.id = c.evd_id;
	if (CALL(sd->fd, EVD_FREE, f) != DAT_SUCCESS)
		return FAIL("free CR|DTO EVD");
	if (dto_qlen && evd_create_flags(sd->fd, &sd->ia, dto_qlen,
					 cookie | 0xf, DAT_EVD_DTO_FLAG,
					 &sd->dto_id, &sd->dto))
		return -1;
	e.ia_id = sd->ia.ia_id;
	e.pz_id = sd->pz_id;
	e.connect_evd_id = sd->conn_id;
	e.recv_evd_id = sd->dto_id;
	e.request_evd_id = sd->dto_id;
	e.cookie = cookie | 0xe;
	if (CALL(sd->fd, EP_CREATE, e) != DAT_SUCCESS)
		return FAIL("ep");
	sd->ep_id = e.ep_id;
	return 0;
}

static int side_open(struct side *sd, __u64 cookie)
{
	return side_open_dto(sd, cookie, 0);
}

static const char *const lmr_unmapped_case[] = {
	"a page without access was registered, or not refused with ARG3",
	"a read-only page was registered for writing, or not refused with ARG3",
	"a range ending in unmapped memory was registered, or not refused with ARG3",
	"cannot map the test pages",
};

/*
 * Memory the process has but cannot give with the access asked: a page
 * without access, a read-only page for local writes, a range whose end
 * is unmapped.  Each is refused with DAT_INVALID_PARAMETER (ARG3) before
 * the device pins anything (siw of 6.1 leaks its page list when pinning
 * fails on the first page).  Returns 0 or the failed case's number.
 */
static int lmr_unmapped(int fd, struct ia *ia, uint32_t pz_id)
{
	const long bad = ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3);
	size_t pg = 4096;
	struct kdapl_ioc_lmr_create c;
	char *m;
	int ret = 0;

	m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 4;
	memset(m, 1, 3 * pg);
	if (mprotect(m, pg, PROT_NONE) || mprotect(m + pg, pg, PROT_READ) ||
	    munmap(m + 2 * pg, pg))
		ret = 4;
	else if (lmr_create(fd, ia, pz_id, m, pg,
			    DAT_MEM_PRIV_REMOTE_WRITE_FLAG, &c) != bad)
		ret = 1;
	else if (lmr_create(fd, ia, pz_id, m + pg, pg,
			    DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &c) != bad)
		ret = 2;
	else if (lmr_create(fd, ia, pz_id, m + pg, 2 * pg,
			    DAT_MEM_PRIV_REMOTE_READ_FLAG, &c) != bad)
		ret = 3;
	munmap(m, 2 * pg);
	return ret;
}

/* The next event of a ring, waiting up to 5 s for it. */
static int next_event(int fd, __u32 evd_id, struct ring *r,
		      struct kdapl_uevent *ev)
{
	long ret = evd_wait(fd, evd_id, 1, 5000000, NULL);

	if (ret != DAT_SUCCESS)
		return FAIL("wait: %#lx", ret);
	if (ring_pop(r, ev) != 1)
		return FAIL("no event after the wait");
	return 0;
}

static long connect_to(struct side *c, struct side *s, __u64 qual,
		       const char *pdata)
{
	struct kdapl_ioc_ep_connect k = {
		.ep_id = c->ep_id, .timeout_us = 5000000, .conn_qual = qual,
		.private_data = (uintptr_t)pdata,
		.private_data_size = strlen(pdata),
	};

	memcpy(k.addr, s->addr, sizeof(k.addr));
	return CALL(c->fd, EP_CONNECT, k);
}

static int test_connect(void)
{
	struct kdapl_ioc_psp_create p = { .conn_qual = 4242,
					  .flags = DAT_PSP_CONSUMER_FLAG,
					  .cookie = 0x95 };
	struct kdapl_ioc_ep_get_status st = { 0 };
	struct kdapl_ioc_cr_reply cr = { 0 };
	struct kdapl_uevent ev;
	struct side s, c;
	long ret;

	if (side_open(&s, 0x500) || side_open(&c, 0xc00))
		return -1;
	p.ia_id = s.ia.ia_id;
	p.evd_id = s.cr_id;
	if (CALL(s.fd, PSP_CREATE, p) != DAT_SUCCESS)
		return FAIL("psp");
	ret = connect_to(&c, &s, 4242, "hello");
	if (ret != DAT_SUCCESS)
		return FAIL("connect: %#lx", ret);
	if (next_event(s.fd, s.cr_id, &s.cr, &ev))
		return -1;
	if (ev.number != DAT_CONNECTION_REQUEST_EVENT || ev.cookie != 0x95 ||
	    ev.evd_cookie != 0x50d || !ev.new_id || ev.data[0] != 4242)
		return FAIL("request event %#x %#llx %#llx %u", ev.number,
			    (unsigned long long)ev.cookie,
			    (unsigned long long)ev.evd_cookie, ev.new_id);
	/* The CR is an object of the server's file only. */
	cr.cr_id = ev.new_id;
	cr.ep_id = c.ep_id;
	if (CALL(c.fd, CR_ACCEPT, cr) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR))
		return FAIL("accept from the other file");
	cr.ep_id = s.ep_id;
	ret = CALL(s.fd, CR_ACCEPT, cr);
	if (ret != DAT_SUCCESS)
		return FAIL("accept: %#lx", ret);
	if (CALL(s.fd, CR_ACCEPT, cr) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR))
		return FAIL("second accept");
	if (next_event(c.fd, c.conn_id, &c.conn, &ev))
		return -1;
	if (ev.number != DAT_CONNECTION_EVENT_ESTABLISHED || ev.cookie != 0xc0e)
		return FAIL("client event %#x %#llx", ev.number,
			    (unsigned long long)ev.cookie);
	if (next_event(s.fd, s.conn_id, &s.conn, &ev))
		return -1;
	if (ev.number != DAT_CONNECTION_EVENT_ESTABLISHED || ev.cookie != 0x50e)
		return FAIL("server event %#x", ev.number);
	st.ep_id = c.ep_id;
	if (CALL(c.fd, EP_GET_STATUS, st) != DAT_SUCCESS ||
	    st.state != DAT_EP_STATE_CONNECTED)
		return FAIL("client state %u", st.state);

	ret = obj_free(c.fd, KDAPL_IOC_EP_DISCONNECT, c.ep_id);
	if (ret != DAT_SUCCESS)
		return FAIL("disconnect: %#lx", ret);
	if (next_event(c.fd, c.conn_id, &c.conn, &ev) ||
	    ev.number != DAT_CONNECTION_EVENT_DISCONNECTED)
		return FAIL("client disconnected %#x", ev.number);
	if (next_event(s.fd, s.conn_id, &s.conn, &ev) ||
	    ev.number != DAT_CONNECTION_EVENT_DISCONNECTED)
		return FAIL("server disconnected %#x", ev.number);
	if (obj_free(s.fd, KDAPL_IOC_EP_FREE, s.ep_id) != DAT_SUCCESS ||
	    obj_free(s.fd, KDAPL_IOC_PSP_FREE, p.psp_id) != DAT_SUCCESS)
		return FAIL("free");
	if (obj_free(s.fd, KDAPL_IOC_EP_FREE, s.ep_id) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP))
		return FAIL("second free");
	/* Everything else goes with the files. */
	close(s.fd);
	close(c.fd);
	return 0;
}

static int test_reject(void)
{
	struct kdapl_ioc_psp_create p = { .conn_qual = 4343,
					  .flags = DAT_PSP_CONSUMER_FLAG };
	struct kdapl_ioc_cr_reply cr = { 0 };
	struct kdapl_uevent ev;
	struct side s, c;

	if (side_open(&s, 0x500) || side_open(&c, 0xc00))
		return -1;
	p.ia_id = s.ia.ia_id;
	p.evd_id = s.cr_id;
	if (CALL(s.fd, PSP_CREATE, p) != DAT_SUCCESS ||
	    connect_to(&c, &s, 4343, "x") != DAT_SUCCESS)
		return FAIL("set-up");
	if (next_event(s.fd, s.cr_id, &s.cr, &ev))
		return -1;
	cr.cr_id = ev.new_id;
	cr.private_data = 8;
	cr.private_data_size = 1;
	if (CALL(s.fd, CR_REJECT, cr) != -EFAULT)
		return FAIL("unreadable private data");
	cr.private_data_size = 100000;
	if (DAT_GET_TYPE(CALL(s.fd, CR_REJECT, cr)) != DAT_INVALID_PARAMETER)
		return FAIL("huge private data");
	cr.private_data_size = 0;
	if (CALL(s.fd, CR_REJECT, cr) != DAT_SUCCESS)
		return FAIL("reject");
	if (next_event(c.fd, c.conn_id, &c.conn, &ev) ||
	    ev.number != DAT_CONNECTION_EVENT_PEER_REJECTED ||
	    ev.cookie != 0xc0e)
		return FAIL("client event %#x", ev.number);
	close(s.fd);
	close(c.fd);
	return 0;
}

/*
 * A CR handed off loses its id; the request comes again, with a new id
 * and the other qualifier, on the EVD of the PSP it went to.
 */
static int test_handoff(void)
{
	struct kdapl_ioc_psp_create p = { .conn_qual = 4747,
					  .flags = DAT_PSP_CONSUMER_FLAG };
	struct kdapl_ioc_psp_create pa = { .flags = DAT_PSP_CONSUMER_FLAG };
	struct kdapl_ioc_cr_handoff h = { 0 };
	struct kdapl_ioc_cr_reply cr = { 0 };
	struct kdapl_uevent ev;
	struct side s, c;

	if (side_open(&s, 0x600) || side_open(&c, 0xd00))
		return -1;
	p.ia_id = s.ia.ia_id;
	p.evd_id = s.cr_id;
	pa.ia_id = s.ia.ia_id;
	pa.evd_id = s.cr_id;
	if (CALL(s.fd, PSP_CREATE, p) != DAT_SUCCESS ||
	    CALL(s.fd, PSP_CREATE_ANY, pa) != DAT_SUCCESS || !pa.conn_qual ||
	    connect_to(&c, &s, 4747, "x") != DAT_SUCCESS)
		return FAIL("set-up");
	if (next_event(s.fd, s.cr_id, &s.cr, &ev))
		return -1;
	h.cr_id = ev.new_id;
	h.conn_qual = pa.conn_qual;
	if (CALL(s.fd, CR_HANDOFF, h) != DAT_SUCCESS)
		return FAIL("handoff");
	cr.cr_id = h.cr_id;
	if (CALL(s.fd, CR_REJECT, cr) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CR))
		return FAIL("the old id still names the CR");
	if (next_event(s.fd, s.cr_id, &s.cr, &ev))
		return -1;
	if (ev.number != DAT_CONNECTION_REQUEST_EVENT || !ev.new_id ||
	    ev.new_id == h.cr_id || ev.data[0] != pa.conn_qual)
		return FAIL("request again: %#x id %u qual %llu", ev.number,
			    ev.new_id, (unsigned long long)ev.data[0]);
	cr.cr_id = ev.new_id;
	if (CALL(s.fd, CR_REJECT, cr) != DAT_SUCCESS)
		return FAIL("reject");
	if (next_event(c.fd, c.conn_id, &c.conn, &ev) ||
	    ev.number != DAT_CONNECTION_EVENT_PEER_REJECTED)
		return FAIL("client event %#x", ev.number);
	close(s.fd);
	close(c.fd);
	return 0;
}

#define PRIV_RW	(DAT_MEM_PRIV_LOCAL_WRITE_FLAG | DAT_MEM_PRIV_REMOTE_WRITE_FLAG | \
		 DAT_MEM_PRIV_REMOTE_READ_FLAG)

static int test_lmr(void)
{
	struct kdapl_ioc_lmr_create small, big, c;
	struct kdapl_ioc_pz_create pz = { 0 };
	long pin0, mod0, ret;
	void *a, *b;
	struct ia ia;
	int fd = dev_open();

	a = map_anon(64 << 10);
	b = map_anon(4 << 20);
	if (fd < 0 || !a || !b || ia_open(fd, &ia, 0))
		return FAIL("set-up");
	pz.ia_id = ia.ia_id;
	if (CALL(fd, PZ_CREATE, pz) != DAT_SUCCESS)
		return FAIL("pz");
	pin0 = vm_pin_kb();
	mod0 = module_pinned();
	if (pin0 < 0 || mod0 < 0)
		return FAIL("no VmPin or module count: %ld %ld", pin0, mod0);

	ret = lmr_create(fd, &ia, pz.pz_id, a, 64 << 10, PRIV_RW, &small);
	if (ret != DAT_SUCCESS)
		return FAIL("64 KiB: %#lx", ret);
	if (!small.lmr_context || !small.rmr_context ||
	    small.registered_address != (uintptr_t)a ||
	    small.registered_length != 64 << 10)
		return FAIL("64 KiB outputs");
	/* 1024 pages: more than rxe's fast-registration limit of 512. */
	ret = lmr_create(fd, &ia, pz.pz_id, b, 4 << 20,
			 DAT_MEM_PRIV_LOCAL_WRITE_FLAG, &big);
	if (ret != DAT_SUCCESS)
		return FAIL("4 MiB: %#lx", ret);
	if (big.rmr_context)
		return FAIL("remote key without remote privileges");
	if (vm_pin_kb() != pin0 + 64 + 4096)
		return FAIL("VmPin %ld, expected %ld", vm_pin_kb(),
			    pin0 + 64 + 4096);
	if (module_pinned() != mod0 + 16 + 1024)
		return FAIL("module count %ld", module_pinned());

	/* In use: the PZ stays. */
	ret = obj_free(fd, KDAPL_IOC_PZ_FREE, pz.pz_id);
	if (DAT_GET_TYPE(ret) != DAT_INVALID_STATE)
		return FAIL("PZ free with LMRs: %#lx", ret);
	if (obj_free(fd, KDAPL_IOC_LMR_FREE, big.lmr_id) != DAT_SUCCESS)
		return FAIL("free");
	if (obj_free(fd, KDAPL_IOC_LMR_FREE, big.lmr_id) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR))
		return FAIL("second free");
	if (vm_pin_kb() != pin0 + 64 || module_pinned() != mod0 + 16)
		return FAIL("after free: VmPin %ld module %ld", vm_pin_kb(),
			    module_pinned());

	/* Not memory of the process: refused, nothing pinned. */
	ret = lmr_create(fd, &ia, pz.pz_id, NULL, 4096, 0, &c);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("NULL: %#lx", ret);
	ret = lmr_create(fd, &ia, pz.pz_id, (void *)0xffff888000000000ul,
			 4096, 0, &c);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("kernel address: %#lx", ret);
	ret = lmr_create(fd, &ia, pz.pz_id, (void *)(~0ul - 100), 4096, 0,
			 &c);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("wrapping range: %#lx", ret);
	ret = lmr_create(fd, &ia, pz.pz_id, a, 0, 0, &c);
	if (ret != ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4))
		return FAIL("zero length: %#lx", ret);
	ret = lmr_unmapped(fd, &ia, pz.pz_id);
	if (ret)
		return FAIL("%s", lmr_unmapped_case[ret - 1]);
	ret = lmr_create(fd, &ia, ia.async_id, a, 4096, 0, &c);
	if (ret != ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PZ))
		return FAIL("EVD id as PZ: %#lx", ret);
	if (vm_pin_kb() != pin0 + 64 || module_pinned() != mod0 + 16)
		return FAIL("refusals pinned something");

	/* The module's cap binds root too. */
	if (set_pin_cap_mb(1))
		return FAIL("cannot set user_pin_max_mb");
	ret = lmr_create(fd, &ia, pz.pz_id, b, 2 << 20, 0, &c);
	set_pin_cap_mb(0);
	if (ret != ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY))
		return FAIL("over the module cap: %#lx", ret);
	if (vm_pin_kb() != pin0 + 64 || module_pinned() != mod0 + 16)
		return FAIL("over the cap pinned something");

	/*
	 * Releasing the file unpins what it still has.  A ring mapping
	 * keeps the file open: the file goes with the last of close() and
	 * munmap().
	 */
	close(fd);
	if (vm_pin_kb() != pin0 + 64)
		return FAIL("released with a ring mapped: VmPin %ld",
			    vm_pin_kb());
	munmap(ia.async.hdr, ia.async.size);
	if (vm_pin_kb() != pin0 || module_pinned() != mod0)
		return FAIL("after release: VmPin %ld module %ld", vm_pin_kb(),
			    module_pinned());
	munmap(a, 64 << 10);
	munmap(b, 4 << 20);
	return 0;
}

/* Take @cap out of the effective set (@on 0) or put it back (@on 1). */
static int cap_effective(int cap, int on)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	if (on)
		d[cap / 32].effective |= 1u << (cap % 32);
	else
		d[cap / 32].effective &= ~(1u << (cap % 32));
	return syscall(SYS_capset, &h, d);
}

/* Drop CAP_IPC_LOCK from the effective set: RLIMIT_MEMLOCK applies. */
static int drop_ipc_lock(void)
{
	return cap_effective(CAP_IPC_LOCK, 0);
}

/*
 * An EVD that merges requests with completions also has a queue for the
 * requests it parks, which counts against the limit with its ring: 512
 * slots of a request EVD's ring (228 KiB) fit in what the child has
 * left, ring and queue (288 KiB) do not.
 */
static int rlimit_crq(int fd, struct ia *ia)
{
	struct kdapl_ioc_evd_create e = { .ia_id = ia->ia_id, .qlen = 512,
					  .flags = DAT_EVD_CR_FLAG };

	if (CALL(fd, EVD_CREATE, e) != DAT_SUCCESS ||
	    obj_free(fd, KDAPL_IOC_EVD_FREE, e.evd_id) != DAT_SUCCESS)
		return -1;
	e.flags = DAT_EVD_CR_FLAG | DAT_EVD_DTO_FLAG;
	e.evd_id = 0;
	return CALL(fd, EVD_CREATE, e) ==
	       ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY) ? 0 : -1;
}

/* In a child: RLIMIT_MEMLOCK of 256 KiB without CAP_IPC_LOCK. */
static int rlimit_child(void)
{
	struct rlimit rl = { 256 << 10, 256 << 10 };
	struct kdapl_ioc_evd_create e = { 0 };
	struct kdapl_ioc_pz_create pz = { 0 };
	struct kdapl_ioc_lmr_create c;
	void *b = map_anon(1 << 20);
	struct ia ia;
	long pin0;
	int fd;

	if (!b || drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl))
		return 10;
	fd = dev_open();
	if (fd < 0 || ia_open(fd, &ia, 0))
		return 11;
	pz.ia_id = ia.ia_id;
	if (CALL(fd, PZ_CREATE, pz) != DAT_SUCCESS)
		return 12;
	pin0 = vm_pin_kb();
	if (lmr_create(fd, &ia, pz.pz_id, b, 1 << 20, 0, &c) !=
	    ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY))
		return 13;
	if (vm_pin_kb() != pin0)
		return 14;
	if (lmr_create(fd, &ia, pz.pz_id, b, 128 << 10, 0, &c) !=
	    DAT_SUCCESS)
		return 15;
	if (vm_pin_kb() != pin0 + 128)
		return 16;
	/* Ring memory counts against RLIMIT_MEMLOCK too: 2 MiB of events. */
	e.ia_id = ia.ia_id;
	e.qlen = 32000;
	e.flags = DAT_EVD_SOFTWARE_FLAG;
	if (CALL(fd, EVD_CREATE, e) !=
	    ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY))
		return 18;
	if (rlimit_crq(fd, &ia))
		return 19;
	munmap(ia.async.hdr, ia.async.size);
	close(fd);
	return vm_pin_kb() == pin0 ? 0 : 17;
}

static int test_lmr_rlimit(void)
{
	pid_t pid = fork();
	int st;

	if (!pid)
		_exit(rlimit_child());
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return FAIL("fork");
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return FAIL("child status %#x", st);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Post rings */

struct pring {
	struct kdapl_post_head *hdr;
	char *rec;
	__u32 head, entries, stride, max_iov;
};

static int pring_map(struct side *sd, struct pring *pr)
{
	struct kdapl_ioc_ep_ring r = { .ep_id = sd->ep_id };
	void *p;

	if (CALL(sd->fd, EP_RING, r) != DAT_SUCCESS)
		return FAIL("EP_RING");
	if (r.entries < 16 || (r.entries & (r.entries - 1)) ||
	    r.stride % 64 || r.max_iov < 1 || r.max_iov > KDAPL_POST_IOV_MAX ||
	    r.stride < sizeof(struct kdapl_post_record) +
		       r.max_iov * sizeof(struct kdapl_post_sge))
		return FAIL("ring %u x %u, %u iov", r.entries, r.stride,
			    r.max_iov);
	p = mmap(NULL, r.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 sd->fd, r.ring_offset);
	if (p == MAP_FAILED)
		return FAIL("mmap post ring: %m");
	pr->hdr = p;
	pr->rec = (char *)p + KDAPL_POST_RECORDS;
	pr->head = pr->hdr->head;
	pr->entries = r.entries;
	pr->stride = r.stride;
	pr->max_iov = r.max_iov;
	if (pr->hdr->entries != r.entries || pr->hdr->stride != r.stride)
		return FAIL("header %u %u", pr->hdr->entries, pr->hdr->stride);
	return 0;
}

/* Queue one record (one segment unless @len is 0) without ringing. */
static struct kdapl_post_record *pring_put(struct pring *pr, __u32 op,
					   __u64 cookie, __u32 lmr_context,
					   void *addr, __u32 len)
{
	struct kdapl_post_record *r;

	r = (void *)(pr->rec + (pr->head & (pr->entries - 1)) * pr->stride);
	memset(r, 0, pr->stride);
	r->op = op;
	r->cookie = cookie;
	r->num_segments = len ? 1 : 0;
	r->sge[0].virtual_address = (uintptr_t)addr;
	r->sge[0].segment_length = len;
	r->sge[0].context = lmr_context;
	pr->head++;
	__atomic_store_n(&pr->hdr->head, pr->head, __ATOMIC_RELEASE);
	return r;
}

static long doorbell(struct side *sd, __u32 flags)
{
	struct kdapl_ioc_ep_post p = { .ep_id = sd->ep_id, .flags = flags };

	return CALL(sd->fd, EP_POST, p);
}

/* Connect @c to @s, both with a DTO EVD. */
static int pair_connect(struct side *s, struct side *c, __u64 qual)
{
	struct kdapl_ioc_psp_create p = { .conn_qual = qual,
					  .flags = DAT_PSP_CONSUMER_FLAG };
	struct kdapl_ioc_cr_reply cr = { 0 };
	struct kdapl_uevent ev;

	if (side_open_dto(s, 0x500, 64) || side_open_dto(c, 0xc00, 64))
		return -1;
	p.ia_id = s->ia.ia_id;
	p.evd_id = s->cr_id;
	if (CALL(s->fd, PSP_CREATE, p) != DAT_SUCCESS ||
	    connect_to(c, s, qual, "") != DAT_SUCCESS)
		return FAIL("set-up");
	if (next_event(s->fd, s->cr_id, &s->cr, &ev))
		return -1;
	cr.cr_id = ev.new_id;
	cr.ep_id = s->ep_id;
	if (CALL(s->fd, CR_ACCEPT, cr) != DAT_SUCCESS)
		return FAIL("accept");
	if (next_event(c->fd, c->conn_id, &c->conn, &ev) ||
	    ev.number != DAT_CONNECTION_EVENT_ESTABLISHED ||
	    next_event(s->fd, s->conn_id, &s->conn, &ev) ||
	    ev.number != DAT_CONNECTION_EVENT_ESTABLISHED)
		return FAIL("not established");
	return 0;
}

/* The next DTO event must be of @cookie with @status (and @len). */
static int dto_expect(struct side *sd, __u64 cookie, __u32 status,
		      long len)
{
	struct kdapl_uevent ev;

	if (next_event(sd->fd, sd->dto_id, &sd->dto, &ev))
		return -1;
	if (ev.number != DAT_DTO_COMPLETION_EVENT || ev.cookie != cookie ||
	    ev.status != status || (len >= 0 && ev.length != (__u64)len) ||
	    ev.data[0] != (sd->ep_id ? ((ev.evd_cookie & ~0xfULL) | 0xe) : 0))
		return FAIL("event %#x cookie %#llx status %u length %llu, want %#llx %u %ld",
			    ev.number, (unsigned long long)ev.cookie,
			    ev.status, (unsigned long long)ev.length,
			    (unsigned long long)cookie, status, len);
	return 0;
}

struct pair {
	struct side s, c;
	struct pring sp, cp;
	char *sbuf, *cbuf;
	struct kdapl_ioc_lmr_create sl, cl;
};

static int pair_open(struct pair *p, __u64 qual)
{
	memset(p, 0, sizeof(*p));
	if (pair_connect(&p->s, &p->c, qual))
		return -1;
	p->sbuf = map_anon(65536);
	p->cbuf = map_anon(65536);
	if (!p->sbuf || !p->cbuf)
		return FAIL("buffers");
	if (lmr_create(p->s.fd, &p->s.ia, p->s.pz_id, p->sbuf, 65536, PRIV_RW,
		       &p->sl) != DAT_SUCCESS ||
	    lmr_create(p->c.fd, &p->c.ia, p->c.pz_id, p->cbuf, 65536, PRIV_RW,
		       &p->cl) != DAT_SUCCESS)
		return FAIL("LMRs");
	if (pring_map(&p->s, &p->sp) || pring_map(&p->c, &p->cp))
		return -1;
	return 0;
}

static void pair_close(struct pair *p)
{
	close(p->s.fd);
	close(p->c.fd);
	munmap(p->sbuf, 65536);
	munmap(p->cbuf, 65536);
}

/* SRQ commands: bad ids, bad segments, other files, an SRQ in use. */
static int srq_checks(int fd, int fd2, struct ia *ia, __u32 pz_id,
		      __u32 srq_id)
{
	struct kdapl_ioc_ep_create e = { .ia_id = ia->ia_id, .pz_id = pz_id };
	struct kdapl_ioc_srq_post sp = { .srq_id = srq_id, .num_segments = 1 };
	struct kdapl_ioc_srq_query q = { .srq_id = srq_id };

	sp.segments = 4096;	/* unmapped */
	if (CALL(fd, SRQ_POST, sp) !=
	    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3))
		return FAIL("post from an unmapped address");
	sp.num_segments = KDAPL_SRQ_POST_IOV_MAX + 1;
	if (CALL(fd, SRQ_POST, sp) !=
	    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("post of too many segments");
	sp.num_segments = -1;
	if (CALL(fd, SRQ_POST, sp) !=
	    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("post of -1 segments");
	if (CALL(fd2, SRQ_QUERY, q) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ))
		return FAIL("another file's SRQ");
	q.reserved = 1;
	if (CALL(fd, SRQ_QUERY, q) != -EINVAL)
		return FAIL("query with a reserved field");
	e.srq_id = pz_id;
	if (CALL(fd, EP_CREATE, e) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_SRQ))
		return FAIL("an EP on a PZ's id as SRQ");
	e.srq_id = srq_id;
	if (CALL(fd, EP_CREATE, e) != DAT_SUCCESS)
		return FAIL("an EP on the SRQ");
	if (obj_free(fd, KDAPL_IOC_SRQ_FREE, srq_id) !=
	    ERR(DAT_INVALID_STATE, DAT_INVALID_STATE_SRQ_IN_USE))
		return FAIL("free of an SRQ in use");
	if (obj_free(fd, KDAPL_IOC_EP_FREE, e.ep_id) != DAT_SUCCESS ||
	    obj_free(fd, KDAPL_IOC_SRQ_FREE, srq_id) != DAT_SUCCESS)
		return FAIL("free");
	return 0;
}

static int test_srq(void)
{
	struct kdapl_ioc_srq_create c = { .max_recv_dtos = 4,
					  .max_recv_iov = 1 };
	struct kdapl_ioc_pz_create pz = { 0 };
	int fd = dev_open(), fd2 = dev_open();
	struct ia ia;

	if (!(fd >= 0 && fd2 >= 0 && ia_open(fd, &ia, 0) == 0))
		return FAIL("set-up");
	pz.ia_id = ia.ia_id;
	if (CALL(fd, PZ_CREATE, pz) != DAT_SUCCESS)
		return FAIL("pz");
	c.ia_id = ia.ia_id;
	c.pz_id = pz.pz_id;
	c.reserved2 = 1;
	if (CALL(fd, SRQ_CREATE, c) != -EINVAL)
		return FAIL("create with a reserved field");
	c.reserved2 = 0;
	if (CALL(fd2, SRQ_CREATE, c) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA))
		return FAIL("create on another file's IA");
	if (CALL(fd, SRQ_CREATE, c) != DAT_SUCCESS)
		return FAIL("create");
	if (srq_checks(fd, fd2, &ia, pz.pz_id, c.srq_id))
		return -1;
	close(fd2);
	close(fd);
	munmap(ia.async.hdr, ia.async.size);
	return 0;
}

/* Send, receive, RDMA Write and RDMA Read through the rings. */
static int test_post(void)
{
	struct kdapl_post_record *r;
	struct pair p;
	int i;

	if (pair_open(&p, 4444))
		return -1;
	for (i = 0; i < 256; i++)
		p.cbuf[i] = (char)(i * 7 + 1);
	/* Four receives in one doorbell. */
	for (i = 0; i < 4; i++)
		pring_put(&p.sp, DAT_DTO_RECEIVE, 0x100 + i, p.sl.lmr_context,
			  p.sbuf + 1024 * i, 1024);
	if (doorbell(&p.s, KDAPL_POST_SYNC) != DAT_SUCCESS)
		return FAIL("receive doorbell");
	if (p.sp.hdr->tail != p.sp.head)
		return FAIL("tail %u head %u", p.sp.hdr->tail, p.sp.head);
	pring_put(&p.cp, DAT_DTO_SEND, 0x200, p.cl.lmr_context, p.cbuf, 100);
	if (doorbell(&p.c, KDAPL_POST_SYNC) != DAT_SUCCESS)
		return FAIL("send doorbell");
	if (dto_expect(&p.c, 0x200, DAT_DTO_SUCCESS, -1) ||
	    dto_expect(&p.s, 0x100, DAT_DTO_SUCCESS, 100))
		return -1;
	if (memcmp(p.sbuf, p.cbuf, 100))
		return FAIL("received data differs");

	/* RDMA Write of 200 bytes at offset 8192 of the server's buffer. */
	r = pring_put(&p.cp, DAT_DTO_RDMA_WRITE, 0x201, p.cl.lmr_context,
		      p.cbuf, 200);
	r->remote.virtual_address = (uintptr_t)p.sbuf + 8192;
	r->remote.segment_length = 200;
	r->remote.context = p.sl.rmr_context;
	if (doorbell(&p.c, KDAPL_POST_SYNC) != DAT_SUCCESS ||
	    dto_expect(&p.c, 0x201, DAT_DTO_SUCCESS, -1))
		return FAIL("RDMA Write");
	if (memcmp(p.sbuf + 8192, p.cbuf, 200))
		return FAIL("written data differs");
	/* RDMA Read of it back into the client's buffer at 4096. */
	r = pring_put(&p.cp, DAT_DTO_RDMA_READ, 0x202, p.cl.lmr_context,
		      p.cbuf + 4096, 200);
	r->remote.virtual_address = (uintptr_t)p.sbuf + 8192;
	r->remote.segment_length = 200;
	r->remote.context = p.sl.rmr_context;
	if (doorbell(&p.c, KDAPL_POST_SYNC) != DAT_SUCCESS ||
	    dto_expect(&p.c, 0x202, DAT_DTO_SUCCESS, 200))
		return FAIL("RDMA Read");
	if (memcmp(p.cbuf + 4096, p.cbuf, 200))
		return FAIL("read data differs");
	pair_close(&p);
	return 0;
}

/* RMR creation and queries: reserved fields, another file's objects. */
static int rmr_checks(struct pair *p, __u32 *rmr_id)
{
	struct kdapl_ioc_rmr_create c = { .ia_id = p->s.ia.ia_id,
					  .pz_id = p->s.pz_id,
					  .cookie = 0x4242, .reserved = 1 };
	struct kdapl_ioc_rmr_query q = { 0 };
	int fd2 = dev_open();

	if (CALL(p->s.fd, RMR_CREATE, c) != -EINVAL)
		return FAIL("create with a reserved field");
	c.reserved = 0;
	if (fd2 < 0 || CALL(fd2, RMR_CREATE, c) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA))
		return FAIL("create on another file's IA");
	close(fd2);
	if (CALL(p->s.fd, RMR_CREATE, c) != DAT_SUCCESS)
		return FAIL("create");
	*rmr_id = q.rmr_id = c.rmr_id;
	if (CALL(p->c.fd, RMR_QUERY, q) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR))
		return FAIL("query of another file's RMR");
	q.reserved = 1;
	if (CALL(p->s.fd, RMR_QUERY, q) != -EINVAL)
		return FAIL("query with a reserved field");
	q.reserved = 0;
	if (CALL(p->s.fd, RMR_QUERY, q) != DAT_SUCCESS || q.rmr_context ||
	    q.segment_length || q.va_type != DAT_VA_TYPE_VA)
		return FAIL("query of an unbound RMR: context %#x length %u",
			    q.rmr_context, q.segment_length);
	return 0;
}

/* Give CAP_IPC_LOCK back to the effective set (drop_ipc_lock()). */
static int raise_ipc_lock(void)
{
	return cap_effective(CAP_IPC_LOCK, 1);
}

/* Bind @w over @len bytes (0: unbind) and take the completion. */
static int rmr_rebind(struct pair *p, struct kdapl_ioc_rmr_bind *w,
		      __u32 len, __u64 cookie)
{
	struct kdapl_uevent ev;

	w->segment_length = len;
	w->cookie = cookie;
	if (CALL(p->s.fd, RMR_BIND, *w) != DAT_SUCCESS ||
	    next_event(p->s.fd, p->s.dto_id, &p->s.dto, &ev) ||
	    ev.number != DAT_RMR_BIND_COMPLETION_EVENT || ev.cookie != cookie)
		return FAIL("bind of %u bytes", len);
	return 0;
}

/*
 * An RMR window pins its range again, charged to pinned_vm against
 * RLIMIT_MEMLOCK: without CAP_IPC_LOCK and 32 KiB below the limit, a
 * 64 KiB window is refused with nothing pinned, a 16 KiB one is taken,
 * and its pages go with the RMR.
 */
static int rmr_rlimit(struct pair *p, const struct kdapl_ioc_rmr_bind *b)
{
	struct kdapl_ioc_rmr_create c = { .ia_id = p->s.ia.ia_id,
					  .pz_id = p->s.pz_id };
	struct kdapl_ioc_rmr_bind w = *b;
	long pin0 = vm_pin_kb();
	struct rlimit old, rl;
	struct kdapl_uevent ev;
	int ret = 0;

	if (CALL(p->s.fd, RMR_CREATE, c) != DAT_SUCCESS ||
	    getrlimit(RLIMIT_MEMLOCK, &old))
		return FAIL("set-up");
	rl.rlim_cur = (pin0 + 32) << 10;
	rl.rlim_max = old.rlim_max;
	if (setrlimit(RLIMIT_MEMLOCK, &rl) || drop_ipc_lock())
		return FAIL("limit");
	w.rmr_id = c.rmr_id;
	w.segment_length = 65536;
	w.cookie = 0xb5;
	if (CALL(p->s.fd, RMR_BIND, w) !=
	    ERR(DAT_INSUFFICIENT_RESOURCES, DAT_RESOURCE_MEMORY) ||
	    vm_pin_kb() != pin0)
		ret = FAIL("64 KiB window over the limit: %ld KiB pinned",
			   vm_pin_kb() - pin0);
	w.segment_length = 16384;
	if (!ret && (CALL(p->s.fd, RMR_BIND, w) != DAT_SUCCESS ||
		     vm_pin_kb() != pin0 + 16 ||
		     next_event(p->s.fd, p->s.dto_id, &p->s.dto, &ev) ||
		     ev.number != DAT_RMR_BIND_COMPLETION_EVENT ||
		     ev.cookie != 0xb5))
		ret = FAIL("16 KiB window: %ld KiB pinned", vm_pin_kb() - pin0);
	/* Unbound, both keys are dead: the next bind unpins the old range. */
	if (!ret && (rmr_rebind(p, &w, 0, 0xb6) ||
		     rmr_rebind(p, &w, 4096, 0xb7) ||
		     vm_pin_kb() != pin0 + 4))
		ret = FAIL("rebound to 4 KiB: %ld KiB pinned",
			   vm_pin_kb() - pin0);
	if (raise_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &old))
		ret = FAIL("restore");
	if (obj_free(p->s.fd, KDAPL_IOC_RMR_FREE, c.rmr_id) != DAT_SUCCESS ||
	    vm_pin_kb() != pin0)
		ret = FAIL("free: %ld KiB left pinned", vm_pin_kb() - pin0);
	return ret;
}

/*
 * The RMR commands.  A bind goes to the send queue after the records the
 * process published in the EP's post ring without ringing: the Send
 * published first completes first, and the ring is empty when the bind
 * returns.  Its completion carries the RMR's and the bind's cookies.
 */
static int test_rmr(void)
{
	struct kdapl_ioc_rmr_bind b = { .mem_priv = DAT_MEM_PRIV_ALL_FLAG,
					.va_type = DAT_VA_TYPE_VA,
					.segment_length = 4096,
					.cookie = 0xb1 };
	struct kdapl_ioc_rmr_query q = { 0 };
	struct kdapl_post_record *r;
	struct kdapl_uevent ev;
	struct pair p;

	if (pair_open(&p, 4446) || rmr_checks(&p, &b.rmr_id))
		return -1;
	b.ep_id = p.s.ep_id;
	b.lmr_id = p.sl.lmr_id;
	b.lmr_context = p.sl.lmr_context;
	b.virtual_address = (uintptr_t)p.sbuf;
	b.reserved = 1;
	if (CALL(p.s.fd, RMR_BIND, b) != -EINVAL)
		return FAIL("bind with a reserved field");
	b.reserved = 0;
	b.lmr_id = p.s.pz_id;
	if (CALL(p.s.fd, RMR_BIND, b) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_LMR))
		return FAIL("bind of a PZ's id as LMR");
	b.lmr_id = p.sl.lmr_id;

	pring_put(&p.cp, DAT_DTO_RECEIVE, 0x301, p.cl.lmr_context, p.cbuf, 64);
	if (doorbell(&p.c, KDAPL_POST_SYNC) != DAT_SUCCESS)
		return FAIL("receive");
	memset(p.sbuf + 8192, 0x77, 16);
	pring_put(&p.sp, DAT_DTO_SEND, 0x300, p.sl.lmr_context, p.sbuf + 8192,
		  16);
	if (CALL(p.s.fd, RMR_BIND, b) != DAT_SUCCESS || !b.rmr_context)
		return FAIL("bind: context %#x", b.rmr_context);
	if (p.sp.hdr->tail != p.sp.head)
		return FAIL("bind left the ring at %u of %u", p.sp.hdr->tail,
			    p.sp.head);
	if (dto_expect(&p.s, 0x300, DAT_DTO_SUCCESS, -1) ||
	    next_event(p.s.fd, p.s.dto_id, &p.s.dto, &ev))
		return -1;
	if (ev.number != DAT_RMR_BIND_COMPLETION_EVENT || ev.cookie != 0xb1 ||
	    ev.status != DAT_RMR_BIND_SUCCESS || ev.data[0] != 0x4242)
		return FAIL("bind completion %#x cookie %#llx status %u rmr %#llx",
			    ev.number, (unsigned long long)ev.cookie,
			    ev.status, (unsigned long long)ev.data[0]);
	if (dto_expect(&p.c, 0x301, DAT_DTO_SUCCESS, 16))
		return -1;

	/* The client writes through the new context. */
	r = pring_put(&p.cp, DAT_DTO_RDMA_WRITE, 0x302, p.cl.lmr_context,
		      p.cbuf + 1024, 64);
	r->remote.virtual_address = (uintptr_t)p.sbuf + 4032;
	r->remote.segment_length = 64;
	r->remote.context = b.rmr_context;
	if (doorbell(&p.c, KDAPL_POST_SYNC) != DAT_SUCCESS ||
	    dto_expect(&p.c, 0x302, DAT_DTO_SUCCESS, -1))
		return FAIL("RDMA Write through the RMR");
	if (memcmp(p.sbuf + 4032, p.cbuf + 1024, 64))
		return FAIL("data written through the RMR differs");
	q.rmr_id = b.rmr_id;
	if (CALL(p.s.fd, RMR_QUERY, q) != DAT_SUCCESS ||
	    q.rmr_context != b.rmr_context || q.segment_length != 4096 ||
	    q.virtual_address != (uintptr_t)p.sbuf ||
	    q.lmr_context != p.sl.lmr_context ||
	    q.mem_priv != DAT_MEM_PRIV_ALL_FLAG)
		return FAIL("query of the bound RMR");
	if (rmr_rlimit(&p, &b))
		return -1;
	if (obj_free(p.s.fd, KDAPL_IOC_RMR_FREE, b.rmr_id) != DAT_SUCCESS ||
	    obj_free(p.s.fd, KDAPL_IOC_RMR_FREE, b.rmr_id) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RMR))
		return FAIL("free");
	pair_close(&p);
	return 0;
}

/* Refused records: synchronously for the last, as events for the rest. */
static int test_post_errors(void)
{
	struct kdapl_post_record *r;
	struct pair p;
	__u32 tail;

	if (pair_open(&p, 4545))
		return -1;
	/* The last record's error is the doorbell's, and makes no event. */
	pring_put(&p.cp, DAT_DTO_SEND, 0x300, p.cl.lmr_context ^ 0x5a5a00,
		  p.cbuf, 10);
	if (doorbell(&p.c, KDAPL_POST_SYNC) !=
	    ERR(DAT_PROTECTION_VIOLATION, DAT_PROTECTION_READ))
		return FAIL("foreign lmr_context");
	r = pring_put(&p.cp, DAT_DTO_SEND, 0x301, p.cl.lmr_context, p.cbuf,
		      10);
	r->num_segments = p.cp.max_iov + 1;
	if (DAT_GET_TYPE(doorbell(&p.c, KDAPL_POST_SYNC)) !=
	    DAT_INVALID_PARAMETER)
		return FAIL("too many segments");
	r = pring_put(&p.cp, DAT_DTO_SEND, 0x302, p.cl.lmr_context, p.cbuf,
		      10);
	r->imm_data = 1;
	if (DAT_GET_TYPE(doorbell(&p.c, KDAPL_POST_SYNC)) !=
	    DAT_INVALID_PARAMETER)
		return FAIL("immediate data on a Send");
	r = pring_put(&p.cp, 77, 0x303, p.cl.lmr_context, p.cbuf, 10);
	if (DAT_GET_TYPE(doorbell(&p.c, KDAPL_POST_SYNC)) !=
	    DAT_INVALID_PARAMETER)
		return FAIL("unknown operation");
	/* A receive-only segment beyond the LMR. */
	pring_put(&p.sp, DAT_DTO_RECEIVE, 0x304, p.sl.lmr_context,
		  p.sbuf + 65000, 1000);
	if (doorbell(&p.s, KDAPL_POST_SYNC) !=
	    ERR(DAT_PROTECTION_VIOLATION, DAT_PROTECTION_WRITE))
		return FAIL("segment beyond the LMR");
	if (p.c.dto.hdr->tail != p.c.dto.hdr->head ||
	    p.s.dto.hdr->tail != p.s.dto.hdr->head)
		return FAIL("a synchronous failure made an event");

	/* An earlier record's failure is its completion. */
	pring_put(&p.sp, DAT_DTO_RECEIVE, 0x305, p.sl.lmr_context ^ 0x5a5a00,
		  p.sbuf, 10);
	pring_put(&p.sp, DAT_DTO_RECEIVE, 0x306, p.sl.lmr_context, p.sbuf,
		  10);
	if (doorbell(&p.s, KDAPL_POST_SYNC) != DAT_SUCCESS)
		return FAIL("second record");
	if (dto_expect(&p.s, 0x305, DAT_DTO_ERR_LOCAL_PROTECTION, 0))
		return -1;

	/* A head more than a ring ahead is refused, nothing taken. */
	tail = p.cp.hdr->tail;
	p.cp.hdr->head = tail + p.cp.entries + 1;
	if (doorbell(&p.c, KDAPL_POST_SYNC) !=
	    ERR(DAT_INVALID_STATE, DAT_NO_SUBTYPE) ||
	    p.cp.hdr->tail != tail)
		return FAIL("runaway head");
	p.cp.hdr->head = tail;
	p.cp.head = tail;
	if (doorbell(&p.c, KDAPL_POST_SYNC | 2) != -EINVAL)
		return FAIL("unknown doorbell flag");
	if (obj_free(p.c.fd, KDAPL_IOC_EP_DISCONNECT, p.c.ep_id) != DAT_SUCCESS)
		return FAIL("disconnect");
	pair_close(&p);
	return 0;
}

struct scribbler {
	struct pring *pr;
	int stop;
	unsigned int seed;
};

/* Rewrite the records and the head of a ring as fast as possible. */
static void *scribble(void *arg)
{
	struct scribbler *sc = arg;
	__u32 *w = (__u32 *)sc->pr->rec;
	size_t n = (size_t)sc->pr->entries * sc->pr->stride / 4;

	while (!__atomic_load_n(&sc->stop, __ATOMIC_RELAXED)) {
		w[rand_r(&sc->seed) % n] = rand_r(&sc->seed);
		if (!(rand_r(&sc->seed) & 63))
			__atomic_store_n(&sc->pr->hdr->head,
					 sc->pr->hdr->tail +
					 rand_r(&sc->seed) % 24,
					 __ATOMIC_RELEASE);
	}
	return NULL;
}

/* A process rewriting its ring while the kernel reads it hurts only itself. */
static int test_post_hostile(void)
{
	struct scribbler sc = { .seed = 1 };
	struct pair p;
	pthread_t t;
	long ret;
	int i, bad = 0;

	if (pair_open(&p, 4646))
		return -1;
	sc.pr = &p.cp;
	if (pthread_create(&t, NULL, scribble, &sc))
		return FAIL("thread");
	for (i = 0; i < 20000; i++) {
		ret = doorbell(&p.c, i & 1 ? KDAPL_POST_SYNC : 0);
		if (ret < 0) {
			bad++;
			break;
		}
		/* Keep the completion ring drained. */
		while (ring_pop(&p.c.dto, &(struct kdapl_uevent){ 0 }))
			;
	}
	__atomic_store_n(&sc.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	if (bad)
		return FAIL("doorbell errno %ld", ret);
	pair_close(&p);
	return 0;
}

/*
 * KDAPL_IOC_EVD_RESIZE moves the events not consumed to a new ring at
 * the same offset; the old mapping stays valid but is no longer written,
 * and the new memory outlives the EVD while mapped.
 */
static int test_evd_resize(void)
{
	struct kdapl_ioc_evd_resize rs = { 0 };
	int fd = dev_open(), fd2 = dev_open();
	struct kdapl_uevent ev;
	struct ring r, r2;
	struct ia ia, ia2;
	__u32 id, i;
	__u64 off;

	if (fd < 0 || fd2 < 0 || ia_open(fd, &ia, 1) || ia_open(fd2, &ia2, 2) ||
	    evd_create(fd, &ia, 4, 0xe5, &id, &r))
		return FAIL("set-up");
	for (i = 1; i <= 3; i++)
		if (post_se(fd, id, i) != DAT_SUCCESS)
			return FAIL("post %u", i);
	if (ring_pop(&r, &ev) != 1 || ev.data[0] != 1)
		return FAIL("first event");
	rs.evd_id = id;
	rs.qlen = 64;
	if (CALL(fd2, EVD_RESIZE, rs) !=
	    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EVD_REQUEST))
		return FAIL("other file");
	rs.reserved = 1;
	if (CALL(fd, EVD_RESIZE, rs) != -EINVAL)
		return FAIL("reserved field");
	rs.reserved = 0;
	rs.qlen = 1;
	if (CALL(fd, EVD_RESIZE, rs) != ERR(DAT_INVALID_STATE, 0))
		return FAIL("two events in a queue of one");
	rs.qlen = -5;
	if (CALL(fd, EVD_RESIZE, rs) !=
	    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("negative qlen");
	rs.qlen = 64;
	if (CALL(fd, EVD_RESIZE, rs) != DAT_SUCCESS || rs.entries != 64 ||
	    rs.ring_size <= r.size)
		return FAIL("resize: %u entries, %llu bytes", rs.entries,
			    (unsigned long long)rs.ring_size);
	if (post_se(fd, id, 4) != DAT_SUCCESS || r.hdr->tail != 3)
		return FAIL("the old ring was written: tail %u", r.hdr->tail);
	off = (__u64)id * getpagesize();
	if (mmap(NULL, r.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off) !=
	    MAP_FAILED || errno != EINVAL)
		return FAIL("the old size mapped");
	if (ring_map(fd, &r2, rs.ring_size, off))
		return FAIL("mmap of the new ring: %m");
	if (r2.hdr->entries != 64 || r2.hdr->head != 0 || r2.hdr->tail != 3)
		return FAIL("new ring %u %u %u", r2.hdr->entries,
			    r2.hdr->head, r2.hdr->tail);
	for (i = 2; i <= 4; i++)
		if (ring_pop(&r2, &ev) != 1 || ev.data[0] != i ||
		    ev.evd_cookie != 0xe5)
			return FAIL("event %u after the move", i);
	munmap(r.hdr, r.size);
	if (obj_free(fd, KDAPL_IOC_EVD_FREE, id) != DAT_SUCCESS ||
	    r2.hdr->entries != 64)
		return FAIL("free");
	munmap(r2.hdr, r2.size);
	close(fd2);
	close(fd);
	munmap(ia.async.hdr, ia.async.size);
	munmap(ia2.async.hdr, ia2.async.size);
	return 0;
}

/*
 * A qualifier below 1024 is a privileged port, as it is for a socket:
 * with CAP_NET_BIND_SERVICE a PSP listens there, without it the create
 * fails with DAT_CONN_QUAL_UNAVAILABLE, not an internal error.
 */
static int test_psp_low_port(void)
{
	struct kdapl_ioc_psp_create p = { .conn_qual = 999,
					  .flags = DAT_PSP_CONSUMER_FLAG,
					  .cookie = 0x97 };
	struct side s;
	long ret;

	if (side_open(&s, 0x500))
		return -1;
	p.ia_id = s.ia.ia_id;
	p.evd_id = s.cr_id;
	if (CALL(s.fd, PSP_CREATE, p) != DAT_SUCCESS ||
	    obj_free(s.fd, KDAPL_IOC_PSP_FREE, p.psp_id) != DAT_SUCCESS)
		return FAIL("port 999 with CAP_NET_BIND_SERVICE");
	if (cap_effective(CAP_NET_BIND_SERVICE, 0))
		return FAIL("capset: %s", strerror(errno));
	p.psp_id = 0;
	ret = CALL(s.fd, PSP_CREATE, p);
	if (cap_effective(CAP_NET_BIND_SERVICE, 1))
		return FAIL("capset: %s", strerror(errno));
	if (ret != ERR(DAT_CONN_QUAL_UNAVAILABLE, DAT_NO_SUBTYPE) || p.psp_id)
		return FAIL("port 999 without the capability: %#lx", ret);
	close(s.fd);
	return 0;
}

/*
 * KDAPL_IOC_COUNTERS: the kernel's counters of an IA (its PZ creates
 * and frees here) and of an EVD, read and reset; another file's EVD, a
 * type without counters, a counter out of range, too small a buffer, a
 * bad user pointer and a reset flag that is not 0 or 1 are refused.  An
 * IA without DAT_COUNTERS (siw) answers DAT_NOT_IMPLEMENTED.
 */
static int test_counters(void)
{
	struct kdapl_ioc_ia_query q = { 0 };
	struct kdapl_ioc_pz_create pz = { 0 };
	struct kdapl_ioc_obj_free f = { 0 };
	struct kdapl_ioc_counters c = { 0 };
	__u64 v[DCNT_IA_ALL_COUNTERS];
	int fd = dev_open(), fd2 = dev_open();
	struct ia ia, ia2;
	struct ring r;
	__u32 id;

	if (fd < 0 || fd2 < 0 || ia_open(fd, &ia, 1) || ia_open(fd2, &ia2, 2))
		return FAIL("set-up");
	q.ia_id = ia.ia_id;
	if (CALL(fd, IA_QUERY, q) != DAT_SUCCESS)
		return FAIL("IA_QUERY");
	c.id = ia.ia_id;
	c.type = DAT_HANDLE_TYPE_IA;
	c.counter = DCNT_IA_ALL_COUNTERS;
	c.capacity = DCNT_IA_ALL_COUNTERS;
	c.values = (uintptr_t)v;
	if (!(q.ib_extensions & KDAPL_IA_EXT_COUNTERS)) {
		if (CALL(fd, COUNTERS, c) != ERR(DAT_NOT_IMPLEMENTED, 0))
			return FAIL("counters without the attribute");
		goto out;
	}
	pz.ia_id = ia.ia_id;
	if (CALL(fd, PZ_CREATE, pz) != DAT_SUCCESS)
		return FAIL("PZ");
	f.id = pz.pz_id;
	if (CALL(fd, PZ_FREE, f) != DAT_SUCCESS ||
	    CALL(fd, PZ_CREATE, pz) != DAT_SUCCESS)
		return FAIL("PZs");
	memset(v, 0xa5, sizeof(v));
	c.reset = 1;
	if (CALL(fd, COUNTERS, c) != DAT_SUCCESS ||
	    c.count != DCNT_IA_ALL_COUNTERS || v[DCNT_IA_PZ_CREATE] != 2 ||
	    v[DCNT_IA_PZ_FREE] != 1 || v[DCNT_IA_EVD_CREATE] != 1 ||
	    v[DCNT_IA_CM_REQ_TX] != 0)
		return FAIL("IA counters: %u, PZ %llu/%llu EVD %llu", c.count,
			    (unsigned long long)v[DCNT_IA_PZ_CREATE],
			    (unsigned long long)v[DCNT_IA_PZ_FREE],
			    (unsigned long long)v[DCNT_IA_EVD_CREATE]);
	c.reset = 0;
	c.counter = DCNT_IA_PZ_CREATE;
	v[0] = 7;
	if (CALL(fd, COUNTERS, c) != DAT_SUCCESS || c.count != 1 || v[0])
		return FAIL("after the reset: %llu", (unsigned long long)v[0]);
	/* The async EVD of the IA: nothing delivered, nothing dequeued. */
	c.id = ia.async_id;
	c.type = DAT_HANDLE_TYPE_EVD;
	c.counter = DCNT_EVD_ALL_COUNTERS;
	if (CALL(fd, COUNTERS, c) != DAT_SUCCESS ||
	    c.count != DCNT_EVD_ALL_COUNTERS || v[DCNT_EVD_DTO_CALLBACK])
		return FAIL("EVD counters");
	c.counter = DCNT_EVD_ALL_COUNTERS + 1;
	if (CALL(fd, COUNTERS, c) !=
	    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
		return FAIL("counter out of range");
	c.counter = DCNT_EVD_ALL_COUNTERS;
	c.capacity = DCNT_EVD_ALL_COUNTERS - 1;
	if (CALL(fd, COUNTERS, c) != ERR(DAT_LENGTH_ERROR, 0))
		return FAIL("capacity");
	c.capacity = DCNT_EVD_ALL_COUNTERS;
	c.values = 8;
	if (CALL(fd, COUNTERS, c) != -EFAULT)
		return FAIL("bad pointer");
	c.values = (uintptr_t)v;
	c.reset = 2;
	if (CALL(fd, COUNTERS, c) != -EINVAL)
		return FAIL("reset 2");
	c.reset = 0;
	c.type = DAT_HANDLE_TYPE_PZ;
	c.id = pz.pz_id;
	if (CALL(fd, COUNTERS, c) != ERR(DAT_INVALID_HANDLE, DAT_INVALID_ARG1))
		return FAIL("a PZ");
	/* An EVD of the first file only, which the second cannot name. */
	if (evd_create(fd, &ia, 4, 0xe6, &id, &r))
		return FAIL("EVD");
	c.type = DAT_HANDLE_TYPE_EVD;
	c.id = id;
	if (CALL(fd, COUNTERS, c) != DAT_SUCCESS ||
	    CALL(fd2, COUNTERS, c) != ERR(DAT_INVALID_HANDLE, DAT_INVALID_ARG1))
		return FAIL("another file's EVD");
	munmap(r.hdr, r.size);
out:
	close(fd2);
	close(fd);
	munmap(ia.async.hdr, ia.async.size);
	munmap(ia2.async.hdr, ia2.async.size);
	return 0;
}

/*
 * KDAPL_IOC_UD_AH_FREE and KDAPL_IOC_UD_CM_FREE: on a reliable EP
 * DAT_INVALID_PARAMETER (ARG1) where the IA has datagram EPs (rxe),
 * DAT_NOT_IMPLEMENTED where it has not (siw); an unknown id on a
 * datagram EP DAT_INVALID_PARAMETER (ARG2); an id that is no EP of the
 * file (a PZ's, or another file's EP's) DAT_INVALID_HANDLE; a short
 * argument the errno of every command (EINVAL).
 */
static int test_ud_free(void)
{
	static const unsigned long cmds[] = { KDAPL_IOC_UD_AH_FREE,
					      KDAPL_IOC_UD_CM_FREE };
	struct kdapl_ioc_ep_create e = { 0 };
	struct kdapl_ioc_ia_query q = { 0 };
	struct kdapl_ioc_ud_free u = { 0 };
	struct side s, o;
	long rc_ep, want;
	unsigned int i;

	if (side_open(&s, 0x5100) || side_open(&o, 0x5200))
		return -1;
	q.ia_id = s.ia.ia_id;
	if (CALL(s.fd, IA_QUERY, q) != DAT_SUCCESS)
		return FAIL("IA_QUERY");
	want = q.ib_extensions & KDAPL_IA_EXT_UD ?
	       ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG1) :
	       ERR(DAT_NOT_IMPLEMENTED, DAT_NO_SUBTYPE);
	e.ia_id = s.ia.ia_id;
	e.pz_id = s.pz_id;
	e.connect_evd_id = s.conn_id;
	e.flags = KDAPL_EP_CREATE_ATTR;
	e.attr.service_type = DAT_IB_SERVICE_TYPE_UD;
	e.attr.max_message_size = 512;
	e.attr.max_recv_dtos = 4;
	e.attr.max_request_dtos = 4;
	e.attr.max_recv_iov = 1;
	e.attr.max_request_iov = 1;
	rc_ep = CALL(s.fd, EP_CREATE, e);
	if (rc_ep != (q.ib_extensions & KDAPL_IA_EXT_UD ? DAT_SUCCESS :
		      ERR(DAT_MODEL_NOT_SUPPORTED, DAT_NO_SUBTYPE)))
		return FAIL("datagram EP: %#lx", rc_ep);
	for (i = 0; i < 2; i++) {
		u.ep_id = s.ep_id;
		u.id = 1;
		if (call(s.fd, cmds[i], &u, sizeof(u)) != want)
			return FAIL("command %u on a reliable EP", i);
		if (rc_ep == DAT_SUCCESS) {
			u.ep_id = e.ep_id;
			if (call(s.fd, cmds[i], &u, sizeof(u)) !=
			    ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2))
				return FAIL("command %u, unknown id", i);
		}
		u.ep_id = s.pz_id;
		if (call(s.fd, cmds[i], &u, sizeof(u)) !=
		    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP))
			return FAIL("command %u on a PZ", i);
		/* The datagram EP's id names nothing in the other file. */
		u.ep_id = rc_ep == DAT_SUCCESS ? e.ep_id : 0x7fff;
		if (call(o.fd, cmds[i], &u, sizeof(u)) !=
		    ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP))
			return FAIL("command %u on another file's EP", i);
		if (call(s.fd, cmds[i], &u, sizeof(u) - 4) != -EINVAL)
			return FAIL("command %u, short argument", i);
	}
	close(o.fd);
	close(s.fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: kdapl_dev_test IA_NAME\n");
		return 2;
	}
	ia_name = argv[1];
	printf("TAP version 13\n1..25\n");
	tap_run("handshake", test_handshake);
	tap_run("malformed", test_malformed);
	tap_run("ia", test_ia);
	tap_run("pz", test_pz);
	tap_run("ring", test_ring);
	tap_run("wait_wakeup", test_wait_wakeup);
	tap_run("cno", test_cno);
	tap_run("evd_poll", test_evd_poll);
	tap_run("fd_copyout", test_fd_copyout);
	tap_run("mmap_rules", test_mmap_rules);
	tap_run("isolation", test_isolation);
	tap_run("lmr", test_lmr);
	tap_run("lmr_rlimit", test_lmr_rlimit);
	tap_run("connect", test_connect);
	tap_run("reject", test_reject);
	tap_run("handoff", test_handoff);
	tap_run("psp_low_port", test_psp_low_port);
	tap_run("post", test_post);
	tap_run("post_errors", test_post_errors);
	tap_run("post_hostile", test_post_hostile);
	tap_run("srq", test_srq);
	tap_run("rmr", test_rmr);
	tap_run("evd_resize", test_evd_resize);
	tap_run("counters", test_counters);
	tap_run("ud_free", test_ud_free);
	return tap_done("kdapl_dev_test");
}
