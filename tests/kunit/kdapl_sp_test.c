// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for Service Points and the handle checks of Connection
 * Requests.  Requests themselves need a connecting peer: the connection
 * tests in tests/kmod cover accept and reject end to end.
 *
 * Copyright (c) 2026 The kdapl authors
 */

#include "kdapl_test_util.h"

/* A qualifier no other test listens on. */
#define KDAPL_SP_TEST_QUAL	47110

static void kdapl_sp_psp_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_EVD_HANDLE evd = kdapl_test_evd(test, ia, 8, DAT_EVD_CR_FLAG);
	DAT_EVD_HANDLE dto = kdapl_test_evd(test, ia, 8, DAT_EVD_DTO_FLAG);
	DAT_PSP_HANDLE psp, psp2;
	DAT_PSP_PARAM param = {};

	KUNIT_EXPECT_EQ(test, dat_psp_create(ia, KDAPL_SP_TEST_QUAL, evd,
					     DAT_PSP_CONSUMER_FLAG, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	KUNIT_EXPECT_EQ(test, dat_psp_create(ia, 0, evd,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_psp_create(ia, KDAPL_SP_TEST_QUAL, evd, 7,
					     &psp),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG4));
	KUNIT_EXPECT_EQ(test, dat_psp_create(evd, KDAPL_SP_TEST_QUAL, evd,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));
	KUNIT_EXPECT_EQ(test, dat_psp_create(ia, KDAPL_SP_TEST_QUAL, dto,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			KDAPL_ERR(DAT_INVALID_HANDLE,
				  DAT_INVALID_HANDLE_EVD_CR));
	KUNIT_EXPECT_EQ(test, dat_psp_create(ia, KDAPL_SP_TEST_QUAL,
					     DAT_HANDLE_NULL,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			KDAPL_ERR(DAT_INVALID_HANDLE,
				  DAT_INVALID_HANDLE_EVD_CR));

	KUNIT_ASSERT_EQ(test, dat_psp_create(ia, KDAPL_SP_TEST_QUAL, evd,
					     DAT_PSP_PROVIDER_FLAG, &psp),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_psp_query(psp, DAT_PSP_FIELD_ALL, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, param.ia_handle, ia);
	KUNIT_EXPECT_EQ(test, param.conn_qual, KDAPL_SP_TEST_QUAL);
	KUNIT_EXPECT_PTR_EQ(test, param.evd_handle, evd);
	KUNIT_EXPECT_EQ(test, param.psp_flags, DAT_PSP_PROVIDER_FLAG);
	KUNIT_EXPECT_EQ(test, dat_psp_query(psp, DAT_PSP_FIELD_ALL, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_psp_query(psp, 0x10, &param),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_psp_query(evd, DAT_PSP_FIELD_ALL, &param),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP));

	/* One listener per qualifier and address. */
	KUNIT_EXPECT_EQ(test, dat_psp_create(ia, KDAPL_SP_TEST_QUAL, evd,
					     DAT_PSP_CONSUMER_FLAG, &psp2),
			KDAPL_ERR(DAT_CONN_QUAL_IN_USE, 0));
	/* The EVD is in use while the PSP reports on it. */
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EVD_IN_USE));
	/* An RSP handle is not a PSP handle, nor the other way round. */
	KUNIT_EXPECT_EQ(test, dat_rsp_free(psp),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP));

	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP));
	/* Freed, the qualifier can be listened on again. */
	KUNIT_ASSERT_EQ(test, dat_psp_create(ia, KDAPL_SP_TEST_QUAL, evd,
					     DAT_PSP_CONSUMER_FLAG, &psp2),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp2), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_evd_free(evd), DAT_SUCCESS);
}

/* The IA's own IPv4 address, with @port. */
static struct sockaddr_in kdapl_sp_ia_addr(struct kunit *test,
					   DAT_IA_HANDLE ia, u16 port)
{
	DAT_PROVIDER_ATTR pattr;
	struct sockaddr_in sin;
	DAT_EVD_HANDLE async;
	DAT_IA_ATTR attr;

	KUNIT_ASSERT_EQ(test, dat_ia_query(ia, &async, DAT_IA_FIELD_ALL, &attr,
					   DAT_PROVIDER_FIELD_ALL, &pattr),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, attr.ia_address_ptr->sa_family, AF_INET);
	memcpy(&sin, attr.ia_address_ptr, sizeof(sin));
	sin.sin_port = htons(port);
	return sin;
}

/*
 * Common Service Points: the argument and communicator checks, the
 * addresses a CSP may listen on, the query, one listener per port
 * whatever the kind of service point, and the free.
 */
static void kdapl_sp_csp_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_EVD_HANDLE evd = kdapl_test_evd(test, ia, 8, DAT_EVD_CR_FLAG);
	DAT_EVD_HANDLE dto = kdapl_test_evd(test, ia, 8, DAT_EVD_DTO_FLAG);
	struct sockaddr_in sin = kdapl_sp_ia_addr(test, ia, KDAPL_SP_TEST_QUAL);
	struct sockaddr *sa = (struct sockaddr *)&sin;
	DAT_COMM comm = { AF_INET, SOCK_STREAM, 0 };
	DAT_CSP_PARAM param = {};
	DAT_CSP_HANDLE csp, csp2;
	DAT_HANDLE_TYPE type;
	DAT_PSP_HANDLE psp;

	KUNIT_EXPECT_EQ(test, dat_csp_create(ia, NULL, sa, evd, &csp),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_csp_create(ia, &comm, NULL, evd, &csp),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_csp_create(ia, &comm, sa, evd, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	comm.type = SOCK_DGRAM;
	KUNIT_EXPECT_EQ(test, dat_csp_create(ia, &comm, sa, evd, &csp),
			KDAPL_ERR(DAT_COMM_NOT_SUPPORTED, 0));
	comm.type = SOCK_STREAM;
	comm.domain = AF_INET6;
	KUNIT_EXPECT_EQ(test, dat_csp_create(ia, &comm, sa, evd, &csp),
			KDAPL_ERR(DAT_COMM_NOT_SUPPORTED, 0));
	comm.domain = AF_INET;
	sin.sin_port = 0;
	KUNIT_EXPECT_EQ(test, dat_csp_create(ia, &comm, sa, evd, &csp),
			KDAPL_ERR(DAT_INVALID_ADDRESS,
				  DAT_INVALID_ADDRESS_MALFORMED));
	sin.sin_port = htons(KDAPL_SP_TEST_QUAL);
	sin.sin_addr.s_addr ^= htonl(0x100);
	KUNIT_EXPECT_EQ(test, dat_csp_create(ia, &comm, sa, evd, &csp),
			KDAPL_ERR(DAT_INVALID_ADDRESS,
				  DAT_INVALID_ADDRESS_UNSUPPORTED));
	sin.sin_addr.s_addr ^= htonl(0x100);
	KUNIT_EXPECT_EQ(test, dat_csp_create(ia, &comm, sa, dto, &csp),
			KDAPL_ERR(DAT_INVALID_HANDLE,
				  DAT_INVALID_HANDLE_EVD_CR));
	KUNIT_EXPECT_EQ(test, dat_csp_create(evd, &comm, sa, evd, &csp),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_IA));

	KUNIT_ASSERT_EQ(test, dat_csp_create(ia, &comm, sa, evd, &csp),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_csp_query(csp, DAT_CSP_FIELD_ALL, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, param.ia_handle, ia);
	KUNIT_EXPECT_PTR_EQ(test, param.evd_handle, evd);
	KUNIT_ASSERT_NOT_NULL(test, param.comm);
	KUNIT_EXPECT_EQ(test, param.comm->type, SOCK_STREAM);
	KUNIT_ASSERT_NOT_NULL(test, param.address_ptr);
	KUNIT_EXPECT_EQ(test, memcmp(param.address_ptr, &sin, sizeof(sin)),
			0);
	KUNIT_EXPECT_EQ(test, dat_csp_query(csp, 0x10, &param),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_csp_query(csp, DAT_CSP_FIELD_ALL, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
	KUNIT_EXPECT_EQ(test, dat_csp_query(evd, DAT_CSP_FIELD_ALL, &param),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CSP));
	KUNIT_EXPECT_EQ(test, dat_psp_free(csp),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP));

	/* The port is taken, for CSPs and PSPs alike. */
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	KUNIT_EXPECT_EQ(test, dat_csp_create(ia, &comm, sa, evd, &csp2),
			KDAPL_ERR(DAT_CONN_QUAL_IN_USE, 0));
	KUNIT_EXPECT_EQ(test, dat_psp_create(ia, KDAPL_SP_TEST_QUAL, evd,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			KDAPL_ERR(DAT_CONN_QUAL_IN_USE, 0));
	KUNIT_EXPECT_EQ(test, dat_csp_free(csp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_csp_free(csp),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_CSP));
	/* The wildcard address is the IA's; the IA's close frees the CSP. */
	KUNIT_ASSERT_EQ(test, dat_csp_create(ia, &comm, sa, evd, &csp2),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_get_handle_type(csp2, &type), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, type, DAT_HANDLE_TYPE_CSP);
}

/*
 * A qualifier above the ports (dapltest's limit tests use 0xAffab1e)
 * is folded into one (kdapl_conn_qual_port()): a connection to it is
 * made, the queries give it back whole, and another qualifier of the
 * same port cannot listen at the same time.
 */
static void kdapl_sp_fold_test(struct kunit *test)
{
	const DAT_CONN_QUAL q = 0xAffab1eULL;
	const DAT_CONN_QUAL twin = q + 32001;
	struct kdapl_test_pair p;
	DAT_PSP_PARAM param = {};
	DAT_EP_PARAM *epp;
	DAT_PSP_HANDLE psp, psp2;

	/* As OFA's provider: 0xAffab1e % 32001 + 33534. */
	KUNIT_EXPECT_EQ(test, kdapl_conn_qual_port(q), 43414);
	KUNIT_EXPECT_EQ(test, kdapl_conn_qual_port(65536), 65536 % 32001 + 33534);
	KUNIT_EXPECT_EQ(test, kdapl_conn_qual_port(twin),
			kdapl_conn_qual_port(q));
	KUNIT_EXPECT_EQ(test, kdapl_conn_qual_port(65535), 65535);

	kdapl_test_pair_init(test, &p, q);
	KUNIT_ASSERT_EQ(test, dat_psp_create(p.ia, q, p.cr,
					     DAT_PSP_CONSUMER_FLAG, &psp),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_psp_query(psp, DAT_PSP_FIELD_CONN_QUAL,
					    &param), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.conn_qual, q);
	KUNIT_EXPECT_EQ(test, dat_psp_create(p.ia, twin, p.cr,
					     DAT_PSP_CONSUMER_FLAG, &psp2),
			KDAPL_ERR(DAT_CONN_QUAL_IN_USE, 0));
	KUNIT_EXPECT_EQ(test, dat_psp_free(psp), DAT_SUCCESS);

	KUNIT_ASSERT_EQ(test, dat_ep_create(p.ia, p.pz, NULL, NULL, p.conn,
					    NULL, &p.cli),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_create(p.sia, p.spz, NULL, NULL, p.sconn,
					    NULL, &p.srv),
			DAT_SUCCESS);
	kdapl_test_connect(test, &p);
	epp = kunit_kzalloc(test, sizeof(*epp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, epp);
	KUNIT_EXPECT_EQ(test, dat_ep_query(p.cli, DAT_EP_FIELD_REMOTE_PORT_QUAL,
					   epp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, epp->remote_port_qual, q);
	KUNIT_EXPECT_EQ(test, dat_ep_query(p.srv, DAT_EP_FIELD_LOCAL_PORT_QUAL,
					   epp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, epp->local_port_qual, q);
	KUNIT_EXPECT_EQ(test, dat_ep_disconnect(p.cli, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
}

static void kdapl_sp_psp_any_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_EVD_HANDLE evd = kdapl_test_evd(test, ia, 8, DAT_EVD_CR_FLAG);
	DAT_CONN_QUAL q1 = 0, q2 = 0;
	DAT_PSP_HANDLE p1, p2;
	DAT_PSP_PARAM param = {};

	KUNIT_EXPECT_EQ(test, dat_psp_create_any(ia, NULL, evd,
						 DAT_PSP_CONSUMER_FLAG, &p1),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_ASSERT_EQ(test, dat_psp_create_any(ia, &q1, evd,
						 DAT_PSP_CONSUMER_FLAG, &p1),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_psp_create_any(ia, &q2, evd,
						 DAT_PSP_CONSUMER_FLAG, &p2),
			DAT_SUCCESS);
	KUNIT_EXPECT_GT(test, q1, 0ULL);
	KUNIT_EXPECT_LE(test, q1, 65535ULL);
	KUNIT_EXPECT_NE(test, q1, q2);
	KUNIT_EXPECT_EQ(test, dat_psp_query(p1, DAT_PSP_FIELD_CONN_QUAL,
					    &param), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, param.conn_qual, q1);
	/* The qualifier picked is taken. */
	KUNIT_EXPECT_EQ(test, dat_psp_create(ia, q1, evd,
					     DAT_PSP_CONSUMER_FLAG, &p2),
			KDAPL_ERR(DAT_CONN_QUAL_IN_USE, 0));
	KUNIT_EXPECT_EQ(test, dat_psp_free(p1), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_psp_free(p2), DAT_SUCCESS);
}

static void kdapl_sp_rsp_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_EVD_HANDLE evd = kdapl_test_evd(test, ia, 8, DAT_EVD_CR_FLAG);
	DAT_PZ_HANDLE pz = kdapl_test_pz(test, ia);
	DAT_RSP_PARAM param = {};
	DAT_EP_HANDLE ep, ep2;
	DAT_RSP_HANDLE rsp, rsp2;

	KUNIT_ASSERT_EQ(test, dat_ep_create(ia, pz, DAT_HANDLE_NULL,
					    DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					    NULL, &ep), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_create(ia, pz, DAT_HANDLE_NULL,
					    DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					    NULL, &ep2), DAT_SUCCESS);

	KUNIT_EXPECT_EQ(test, dat_rsp_create(ia, KDAPL_SP_TEST_QUAL, evd, evd,
					     &rsp),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_EP));
	KUNIT_EXPECT_EQ(test, dat_rsp_create(ia, KDAPL_SP_TEST_QUAL, ep, evd,
					     NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG5));
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
			DAT_EP_STATE_UNCONNECTED);

	KUNIT_ASSERT_EQ(test, dat_rsp_create(ia, KDAPL_SP_TEST_QUAL, ep, evd,
					     &rsp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
			DAT_EP_STATE_RESERVED);
	KUNIT_EXPECT_EQ(test, dat_rsp_query(rsp, DAT_RSP_FIELD_ALL, &param),
			DAT_SUCCESS);
	KUNIT_EXPECT_PTR_EQ(test, param.ia_handle, ia);
	KUNIT_EXPECT_EQ(test, param.conn_qual, KDAPL_SP_TEST_QUAL);
	KUNIT_EXPECT_PTR_EQ(test, param.evd_handle, evd);
	KUNIT_EXPECT_PTR_EQ(test, param.ep_handle, ep);
	KUNIT_EXPECT_EQ(test, dat_rsp_query(rsp, 0x10, &param),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_psp_query(rsp, DAT_PSP_FIELD_ALL, NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));

	/* A reserved EP cannot be reserved again. */
	KUNIT_EXPECT_EQ(test, dat_rsp_create(ia, KDAPL_SP_TEST_QUAL + 1, ep,
					     evd, &rsp2),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_RESERVED));
	/* The qualifier is taken. */
	KUNIT_EXPECT_EQ(test, dat_rsp_create(ia, KDAPL_SP_TEST_QUAL, ep2, evd,
					     &rsp2),
			KDAPL_ERR(DAT_CONN_QUAL_IN_USE, 0));
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep2),
			DAT_EP_STATE_UNCONNECTED);
	/* Only an unconnected EP can be reserved. */
	kdapl_test_set_ep_state(test, ep2, DAT_EP_STATE_CONNECTED);
	KUNIT_EXPECT_EQ(test, dat_rsp_create(ia, KDAPL_SP_TEST_QUAL + 1, ep2,
					     evd, &rsp2),
			KDAPL_ERR(DAT_INVALID_STATE,
				  DAT_INVALID_STATE_EP_CONNECTED));
	kdapl_test_set_ep_state(test, ep2, DAT_EP_STATE_UNCONNECTED);

	KUNIT_EXPECT_EQ(test, dat_rsp_free(rsp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, kdapl_test_ep_state(test, ep),
			DAT_EP_STATE_UNCONNECTED);
	KUNIT_EXPECT_EQ(test, dat_rsp_free(rsp),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP));
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ep_free(ep2), DAT_SUCCESS);
}

/* CR calls refuse anything that is not a live CR handle. */
static void kdapl_sp_cr_handle_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_IA_HANDLE ia = kdapl_test_open_ia(test, *name);
	DAT_EVD_HANDLE evd = kdapl_test_evd(test, ia, 8, DAT_EVD_CR_FLAG);
	const DAT_RETURN bad = KDAPL_ERR(DAT_INVALID_HANDLE,
					 DAT_INVALID_HANDLE_CR);
	DAT_HANDLE handles[] = { DAT_HANDLE_NULL, ia, evd,
				 (DAT_HANDLE)(uintptr_t)0x12345678 };
	DAT_CR_PARAM param;
	int i;

	for (i = 0; i < ARRAY_SIZE(handles); i++) {
		KUNIT_EXPECT_EQ(test, dat_cr_query(handles[i],
						   DAT_CR_FIELD_ALL, &param),
				bad);
		KUNIT_EXPECT_EQ(test, dat_cr_accept(handles[i],
						    DAT_HANDLE_NULL, 0, NULL),
				bad);
		KUNIT_EXPECT_EQ(test, dat_cr_reject(handles[i], 0, NULL), bad);
		KUNIT_EXPECT_EQ(test, dat_cr_handoff(handles[i], 1), bad);
	}
	KUNIT_EXPECT_EQ(test, dat_cr_query(DAT_HANDLE_NULL, 0x40, &param),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG2));
	KUNIT_EXPECT_EQ(test, dat_cr_query(DAT_HANDLE_NULL, DAT_CR_FIELD_ALL,
					   NULL),
			KDAPL_ERR(DAT_INVALID_PARAMETER, DAT_INVALID_ARG3));
}

/* An abrupt close frees service points and gives reserved EPs back. */
static void kdapl_sp_abrupt_close_test(struct kunit *test)
{
	const char *const *name = test->param_value;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL, evd;
	DAT_PSP_HANDLE psp;
	DAT_RSP_HANDLE rsp;
	DAT_PSP_PARAM param;
	DAT_CONN_QUAL qual;
	DAT_IA_HANDLE ia;
	DAT_PZ_HANDLE pz;
	DAT_EP_HANDLE ep;

	kdapl_test_open_ia(test, *name);	/* skips without the device */
	KUNIT_ASSERT_EQ(test, dat_ia_open(*name, 4, &async, &ia), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_evd_kcreate(ia, 4, DAT_UPCALL_DISABLE, NULL,
					      DAT_EVD_CR_FLAG, &evd),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_pz_create(ia, &pz), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_ep_create(ia, pz, DAT_HANDLE_NULL,
					    DAT_HANDLE_NULL, DAT_HANDLE_NULL,
					    NULL, &ep), DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_psp_create_any(ia, &qual, evd,
						 DAT_PSP_CONSUMER_FLAG, &psp),
			DAT_SUCCESS);
	KUNIT_ASSERT_EQ(test, dat_rsp_create(ia, KDAPL_SP_TEST_QUAL, ep, evd,
					     &rsp), DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG),
			DAT_SUCCESS);
	KUNIT_EXPECT_EQ(test, dat_psp_query(psp, DAT_PSP_FIELD_ALL, &param),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_PSP));
	KUNIT_EXPECT_EQ(test, dat_rsp_free(rsp),
			KDAPL_ERR(DAT_INVALID_HANDLE, DAT_INVALID_HANDLE_RSP));
}

static struct kunit_case kdapl_sp_cases[] = {
	KUNIT_CASE_PARAM(kdapl_sp_psp_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_sp_csp_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_sp_psp_any_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_sp_fold_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_sp_rsp_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_sp_cr_handle_test, kdapl_test_adapter_gen),
	KUNIT_CASE_PARAM(kdapl_sp_abrupt_close_test, kdapl_test_adapter_gen),
	{}
};

static struct kunit_suite kdapl_sp_suite = {
	.name = "kdapl_sp",
	.test_cases = kdapl_sp_cases,
};

kunit_test_suite(kdapl_sp_suite);
