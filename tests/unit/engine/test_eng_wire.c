/* SPDX-License-Identifier: MIT */
/*
 * RC between two processes over the wire: the test forks, each process
 * has one device whose port 1 is a VXLAN endpoint on its own loopback
 * address (127.0.<dev>.2, the address of its IPv4-mapped GIDs), and the
 * frames cross the kernel's UDP path.  Wire fault rules act on the
 * parent's frames: a lost frame is resent and the message still
 * completes; a peer that never answers ends in the transport retry
 * counter exceeded error a ConnectX reports.  A SEND_WITH_INV crosses
 * with its IETH and frees the child's type 2 memory window.  DC crosses
 * as well: a DCI in the parent, a DCT on an SRQ in the child.  The same
 * scenario over the same-host fast path (shared memory) puts the same
 * data frames on the wire as over UDP.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "eng_test.h"

#include <infiniband/mlx5dv.h>

#include "emu/fault/fault.h"
#include "emu/base/bytes.h"
#include "emu/wire/wire.h"

#define MSGS 8
#define MSG_LEN 3000	/* three packets at the 1 KiB path MTU */
#define SERVE_READS 0x80000000u	/* msgs: the child answers READs */
#define INVALIDATE 0x40000000u	/* msgs: the child binds a window */

/* Ports over the same-host fast path (else UDP only). */
static bool fast_path;

struct side {
	struct ent_dev d;
	struct ent_cq cq;
	struct ent_mr mr;
	struct ent_qp qp;
	struct emu_wire_port *wp;
	uint32_t ctr;
};

/* A socket on 127.0.<dev>.2:port (0: any), its port returned. */
static int wire_socket(int dev, uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(*port) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(0x7f000002u | (uint32_t)dev << 8);
	ck_assert_msg(!bind(fd, (struct sockaddr *)&a, sizeof(a)),
		      "bind 127.0.%d.2:%u: %s", dev, *port, strerror(errno));
	ck_assert(!getsockname(fd, (struct sockaddr *)&a, &len));
	*port = ntohs(a.sin_port);
	return fd;
}

/* @fd: the port's socket, bound to 127.0.<dev>.2:@udp_port. */
static void side_init(struct side *s, int dev, int fd, uint16_t udp_port,
		      const char *capture)
{
	struct emu_wire_port_cfg pc = {
		.name = "test", .dev = dev, .port = 1, .vni = 4791,
		.mac = { 0x02, 0xc9, 0x7f, 0, (uint8_t)dev, 1 },
		.capture = capture,
	};
	struct ent_qp_cfg qc = {
		.type = ENT_RC, .log_sq = 6, .log_rq = 6, .log_rq_stride = 2,
	};
	struct emu_wire_ep local = { .family = AF_INET,
				     .addr = { 127, 0, (uint8_t)dev, 2 } };
	struct emu_wire_link *link;

	ent_dev_init(&s->d, dev);
	local.port = udp_port;
	pc.peer_udp_port = udp_port;
	link = emu_wire_link_udp_create(fd, &local);
	ck_assert_ptr_nonnull(link);
	if (fast_path) {
		link = emu_wire_link_shm_create(link);
		ck_assert_ptr_nonnull(link);
	}
	s->wp = emu_wire_port_create(&pc, link);
	ck_assert_ptr_nonnull(s->wp);
	emu_fault_wire_attach(s->wp);
	ck_assert_int_eq(emu_eng_port_attach(s->d.fw, 1, s->wp), 0);
	ent_cq_init(&s->d, &s->cq, 6, 64, false);
	ent_mr_init(&s->d, &s->mr, s->d.pd, MSGS * MSG_LEN, ENT_MR_ALL,
		    IBV_ACCESS_LOCAL_WRITE);
	qc.scq = qc.rcq = &s->cq;
	ent_qp_create(&s->d, &s->qp, &qc);
	s->ctr = ent_q_counter(&s->d);
}

/* ack_timeout: 4.096 us << it; long enough for a loaded machine unless a
 * test wants the timer to fire. */
static void side_rts(struct side *s, uint32_t rqpn, int peer_dev,
		     unsigned int retry, unsigned int ack_timeout)
{
	uint8_t rgid[16] = { [10] = 0xff, [11] = 0xff, [12] = 127,
			     [14] = (uint8_t)peer_dev, [15] = 2 };
	struct ent_conn c;

	ent_conn_default(&c);
	c.remote_qpn = rqpn;
	c.rgid = rgid;
	c.sgid_index = ENT_GID_V2_V4;
	c.sq_psn = 100;
	c.rq_psn = 100;
	c.ack_timeout = ack_timeout;
	c.retry_count = retry;
	c.counter = s->ctr;
	ent_qp_to_rts(&s->qp, NULL, &c);
}

static uint8_t pattern(unsigned int i)
{
	return (uint8_t)(i * 7 + 3);
}

/* @n bytes of @v, big-endian. */
static void put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/*
 * The child's type 2 window over its whole MR, bound to its QP with a
 * literal UMR WQE (libmlx5 set_bind_wr's bytes); its rkey.
 */
static uint32_t child_bind_window(struct side *s)
{
	uint8_t w[192] = { 0 };
	struct fwt_mbox m;
	uint32_t rkey;
	void *mkc;

	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_MKEY, 0, s->d.uid,
		      PRM_ST_SZ_BYTES(create_mkey_in),
		      PRM_ST_SZ_BYTES(create_mkey_out));
	mkc = PRM_ADDR_OF(create_mkey_in, m.in, memory_key_mkey_entry);
	PRM_SET(mkc, mkc, free, 1);
	PRM_SET(mkc, mkc, umr_en, 1);
	PRM_SET(mkc, mkc, lr, 1);
	PRM_SET(mkc, mkc, access_mode_1_0, 2);	/* KLMs */
	PRM_SET(mkc, mkc, en_rinval, 1);
	PRM_SET(mkc, mkc, translations_octword_size, 4);
	PRM_SET(mkc, mkc, qpn, 0xffffff);
	PRM_SET(mkc, mkc, mkey_7_0, 0x10);
	PRM_SET(mkc, mkc, pd, s->d.pd);
	fwt_exec(s->d.fw, &m);
	ck_fw_ok(&m);
	rkey = PRM_GET(create_mkey_out, m.out, mkey_index) << 8 | 0x11;
	ent_ctrl(w, 0, MLX5_OPCODE_UMR, s->qp.qpn, 12, MLX5_WQE_CTRL_CQ_UPDATE,
		 htobe32(rkey - 1));
	/* UMR control: INLINE | CHECK_FREE | TRANSLATION_OFFSET, 4 KLM
	 * octowords, mask FREE, MKEY, QPN, LEN, START_ADDR, LW/RR/RW/A. */
	w[16] = 0xb0;
	put_be(w + 20, 4, 2);
	put_be(w + 24, 0x203c6041, 8);
	/* mkey context: remote write, this QP and key 0x11, the range. */
	w[64 + 2] = 0x20;
	put_be(w + 64 + 4, s->qp.qpn << 8 | 0x11, 4);
	put_be(w + 64 + 16, (uintptr_t)s->mr.buf, 8);
	put_be(w + 64 + 24, s->mr.len, 8);
	/* The KLM: byte count, the MR's lkey, its address. */
	put_be(w + 128, s->mr.len, 4);
	put_be(w + 128 + 4, s->mr.key, 4);
	put_be(w + 128 + 8, (uintptr_t)s->mr.buf, 8);
	ent_sq_put(&s->qp, w, 3);
	ent_sq_ring(&s->qp);
	ent_cqe_check(ent_cq_next(&s->cq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ, .qpn = s->qp.qpn,
		.wqe_op = MLX5_OPCODE_UMR, .wqe_counter = 0 });
	return rkey;
}

/* Whether @rkey still reaches the child's buffer (for its QP). */
static bool child_window_valid(struct side *s, uint32_t rkey)
{
	struct emu_fw_obj *pd = emu_fw_obj_get(s->d.fw, EMU_FW_OBJ_PD, s->d.pd);
	enum emu_fw_mkey_res r;
	uint8_t *host;

	/* A window changes only in engine passes, and the resolver is the
	 * engine's: stopping the thread (joined) and starting it again
	 * orders this read with its passes on both sides. */
	emu_eng_stop();
	emu_fw_rcu_lock();
	r = emu_fw_mkey_resolve_qp(s->d.fw, rkey, emu_fw_to_pd(pd), s->qp.qpn,
				   EMU_FW_MKEY_RW, (uintptr_t)s->mr.buf, 8,
				   &host);
	emu_fw_rcu_unlock();
	ck_assert_int_eq(emu_eng_start(), 0);
	emu_fw_obj_put(pd);
	return r == EMU_FW_MKEY_OK;
}

/*
 * The child: a responder for MSGS SENDs, which it checks against the
 * pattern; it tells the parent its QPN, and exits 0 only when every
 * message came whole.
 */
static void child_run(int to_parent, int from_parent, uint16_t udp_port)
{
	struct side s;
	uint32_t rqpn, msgs, rkey = 0;
	unsigned int bad = 0;
	char eof;

	side_init(&s, 1, wire_socket(1, &udp_port), udp_port, NULL);
	for (unsigned int i = 0; i < MSGS; i++)
		ent_post_recv(&s.qp, s.mr.key,
			      (uint64_t)(uintptr_t)s.mr.buf + i * MSG_LEN,
			      MSG_LEN);
	ck_assert(write(to_parent, &s.qp.qpn, 4) == 4);
	ck_assert(read(from_parent, &rqpn, 4) == 4);
	ck_assert(read(from_parent, &msgs, 4) == 4);
	if (msgs & SERVE_READS)
		for (unsigned int i = 0; i < MSGS * MSG_LEN; i++)
			s.mr.buf[i] = pattern(i);
	side_rts(&s, rqpn, 0, 7, 16);
	if (msgs & INVALIDATE) {
		rkey = child_bind_window(&s);
		if (!child_window_valid(&s, rkey))
			_exit(3);
		ck_assert(write(to_parent, &rkey, 4) == 4);
		msgs &= ~INVALIDATE;
	}
	ck_assert(write(to_parent, &rqpn, 4) == 4);	/* ready */
	if (msgs & SERVE_READS) {
		uint64_t addr = (uint64_t)(uintptr_t)s.mr.buf;

		ck_assert(write(to_parent, &addr, 8) == 8);
		ck_assert(write(to_parent, &s.mr.key, 4) == 4);
		for (;;)
			pause();	/* its engine answers until killed */
	}
	for (unsigned int i = 0; i < msgs; i++) {
		const uint8_t *cqe = ent_cq_next(&s.cq);
		uint8_t op = rkey && i == msgs - 1 ? MLX5_CQE_RESP_SEND_INV :
						     MLX5_CQE_RESP_SEND;

		if (!cqe || (cqe[63] >> 4) != op)
			_exit(10 + (int)i);
		/* The key the IETH carried, in imm_inval_pkey. */
		if (op == MLX5_CQE_RESP_SEND_INV &&
		    (uint32_t)(cqe[36] << 24 | cqe[37] << 16 | cqe[38] << 8 |
			       cqe[39]) != rkey)
			_exit(4);
	}
	if (rkey && child_window_valid(&s, rkey))
		_exit(5);
	for (unsigned int i = 0; i < msgs * MSG_LEN; i++)
		bad += s.mr.buf[i] != pattern(i);
	/* Stay until the parent is done: the ACKs of the last packets leave
	 * at the end of the engine's pass, after the CQE is visible. */
	while (read(from_parent, &eof, 1) > 0)
		;
	_exit(bad ? 2 : 0);
}

static struct side pa;
static pid_t child;
static int child_down = -1;	/* its end of the pipe: EOF lets it exit */
static uint16_t udp_port;
static uint64_t peer_addr;	/* a READ-serving child's buffer */
static uint32_t peer_rkey;
static uint32_t peer_window;	/* an INVALIDATE child's window */

/* The parent's side, connected to a forked child's that expects msgs
 * SENDs; the parent's QP resends retry times, every 4.096 us <<
 * ack_timeout.  The fork comes before the parent's device starts the
 * engine thread: a child of a process with threads may not start its own
 * (ThreadSanitizer refuses). */
static void fork_child(void (*run)(int to_parent, int from_parent,
				    uint16_t udp_port),
		       const char *capture, int up[2], int down[2])
{
	int fd;

	ck_assert(!pipe(up) && !pipe(down));
	fd = wire_socket(0, &udp_port);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		close(up[0]);
		close(down[1]);
		close(fd);
		run(up[1], down[0], udp_port);
	}
	side_init(&pa, 0, fd, udp_port, capture);
	close(up[1]);
	close(down[0]);
}

static void pair_up(const char *capture, uint32_t msgs, unsigned int retry,
		    unsigned int ack_timeout)
{
	int up[2], down[2];
	uint32_t rqpn, ready;

	fork_child(child_run, capture, up, down);
	ck_assert(read(up[0], &rqpn, 4) == 4);
	side_rts(&pa, rqpn, 1, retry, ack_timeout);
	ck_assert(write(down[1], &pa.qp.qpn, 4) == 4);
	ck_assert(write(down[1], &msgs, 4) == 4);
	if (msgs & INVALIDATE)
		ck_assert(read(up[0], &peer_window, 4) == 4);
	ck_assert(read(up[0], &ready, 4) == 4);
	if (msgs & SERVE_READS)
		ck_assert(read(up[0], &peer_addr, 8) == 8 &&
			  read(up[0], &peer_rkey, 4) == 4);
	close(up[0]);
	child_down = down[1];
}

static void post_all(unsigned int msgs)
{
	for (unsigned int i = 0; i < msgs * MSG_LEN; i++)
		pa.mr.buf[i] = pattern(i);
	for (unsigned int i = 0; i < msgs; i++)
		ent_post1(&pa.qp, MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE, 0,
			  &pa.mr, i * MSG_LEN, MSG_LEN, 0, 0);
}

static void send_all(void)
{
	post_all(MSGS);
	for (unsigned int i = 0; i < MSGS; i++)
		ent_cqe_check(ent_cq_next(&pa.cq), &(struct ent_cqe_exp){
			.opcode = MLX5_CQE_REQ, .qpn = pa.qp.qpn,
			.wqe_op = MLX5_OPCODE_SEND, .wqe_counter = (uint16_t)i,
			.byte_cnt = MSG_LEN });
}

static void child_done(void)
{
	int status;

	if (child_down >= 0)
		close(child_down);
	child_down = -1;
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the child's receives: status 0x%x", status);
}

static uint64_t port_drops(enum emu_wire_drop why)
{
	struct emu_wire_port_stats st;

	emu_wire_port_stats(pa.wp, &st);
	return st.drops[why];
}

START_TEST(rc_two_processes)
{
	struct emu_wire_port_stats st;
	const char *dir = getenv("MLX5EMU_TEST_CAPTURE_DIR");
	char capture[512];

	if (dir)
		snprintf(capture, sizeof(capture), "%s/rc_two_processes.pcap",
			 dir);
	pair_up(dir ? capture : NULL, MSGS, 7, 16);
	send_all();
	child_done();
	emu_wire_port_stats(pa.wp, &st);
	/* 3 packets a message went; at least one ACK came back. */
	ck_assert_uint_ge(st.tx_frames, MSGS * 3);
	ck_assert_uint_ge(st.rx_frames, 1);
	ck_assert_uint_eq(ent_q_counter_get(&pa.d, pa.ctr,
					    "local_ack_timeout_err"), 0);
	ent_dev_fini(&pa.d);	/* closes the capture */
}
END_TEST

/* The RC requests in a capture: BTH onward (pad and payload, no ICRC)
 * by PSN; a resent packet must repeat its first copy. */
struct psn_frames {
	uint8_t data[MSGS * 3][64 + 1024];
	uint32_t len[MSGS * 3];
};

static void capture_requests(const char *path, struct psn_frames *pf)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path, err);
	struct pcap_pkthdr *h;
	const u_char *f;

	ck_assert_msg(pc, "%s: %s", path, err);
	memset(pf, 0, sizeof(*pf));
	while (pcap_next_ex(pc, &h, &f) == 1) {
		/* Ethernet, IPv4 (20 bytes), UDP 4791, BTH at 42. */
		uint32_t psn, len;

		ck_assert_uint_ge(h->caplen, 42 + 12 + 4);
		/* Every frame the capture holds carries its ICRC, also one a
		 * peer on the fast path left for the observer to compute. */
		ck_assert_uint_eq(emu_get_le32(f + h->caplen - 4),
				  emu_wire_icrc(f, 14, h->caplen));
		if (f[12] != 0x08 || f[13] != 0x00 || (f[42] & 0xe0) ||
		    f[42] > 0x05)
			continue;	/* not an RC SEND packet */
		psn = (uint32_t)f[51] << 16 | (uint32_t)f[52] << 8 | f[53];
		ck_assert_uint_ge(psn, 100);
		ck_assert_uint_lt(psn - 100, MSGS * 3);
		len = h->caplen - 42 - 4;
		ck_assert_uint_le(len, sizeof(pf->data[0]));
		if (pf->len[psn - 100]) {
			ck_assert_uint_eq(pf->len[psn - 100], len);
			ck_assert(!memcmp(pf->data[psn - 100], f + 42, len));
		}
		pf->len[psn - 100] = len;
		memcpy(pf->data[psn - 100], f + 42, len);
	}
	pcap_close(pc);
}

/* The same scenario
 * (PSNs, messages) on the fast path and on UDP: the same SEND packets,
 * PSN for PSN, BTH and payload alike; the counters show which path each
 * run took.  ACKs may come at other times and are not compared.  Only
 * the parent captures: the child's ACKs come without their ICRC on the
 * fast path, and the parent's capture must show it computed. */
/* One run of the scenario on one path, in a process of its own: each
 * forks its peer before its engine starts a thread. */
static void one_path(bool fast, const char *capture)
{
	struct emu_wire_port_stats st;
	pid_t p = fork();
	int status;

	ck_assert_int_ge(p, 0);
	if (!p) {
		fast_path = fast;
		pair_up(capture, MSGS, 7, 16);
		send_all();
		child_done();
		emu_wire_port_stats(pa.wp, &st);
		if (fast ? st.link.fast_tx < MSGS * 3 : st.link.fast_tx != 0)
			_exit(7);
		ent_dev_fini(&pa.d);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(p, &status, 0), p);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the %s run: status 0x%x", fast ? "fast" : "udp", status);
}

START_TEST(rc_same_frames_both_paths)
{
	static struct psn_frames pf[2];
	char dir[] = "/tmp/mlx5emu-paths-XXXXXX", capture[2][64];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int k = 0; k < 2; k++) {
		snprintf(capture[k], sizeof(capture[k]), "%s/%s.pcap", dir,
			 k ? "fast" : "udp");
		one_path(k == 1, capture[k]);
		capture_requests(capture[k], &pf[k]);
		unlink(capture[k]);
	}
	rmdir(dir);
	for (unsigned int i = 0; i < MSGS * 3; i++) {
		ck_assert_msg(pf[0].len[i], "PSN %u not sent", 100 + i);
		ck_assert_uint_eq(pf[0].len[i], pf[1].len[i]);
		ck_assert_msg(!memcmp(pf[0].data[i], pf[1].data[i], pf[0].len[i]),
			      "PSN %u differs", 100 + i);
	}
}
END_TEST

/* The last of the messages is a SEND_WITH_INV of the child's window:
 * three packets, the IETH in the last; the child sees the key in its
 * CQE and the window free. */
START_TEST(rc_send_inv)
{
	pair_up(NULL, MSGS | INVALIDATE, 7, 16);
	for (unsigned int i = 0; i < MSGS * MSG_LEN; i++)
		pa.mr.buf[i] = pattern(i);
	for (unsigned int i = 0; i < MSGS; i++)
		ent_post1(&pa.qp, i == MSGS - 1 ? MLX5_OPCODE_SEND_INVAL :
			  MLX5_OPCODE_SEND, MLX5_WQE_CTRL_CQ_UPDATE,
			  i == MSGS - 1 ? htobe32(peer_window) : 0, &pa.mr,
			  i * MSG_LEN, MSG_LEN, 0, 0);
	for (unsigned int i = 0; i < MSGS; i++)
		ent_cqe_check(ent_cq_next(&pa.cq), &(struct ent_cqe_exp){
			.opcode = MLX5_CQE_REQ, .qpn = pa.qp.qpn,
			.wqe_op = i == MSGS - 1 ? MLX5_OPCODE_SEND_INVAL :
						  MLX5_OPCODE_SEND,
			.wqe_counter = (uint16_t)i, .byte_cnt = MSG_LEN });
	child_done();
	ent_dev_fini(&pa.d);
}
END_TEST

static struct emu_eng_qp_stats qp_seen;

static void qp_sink(void *arg, int dev, const struct emu_eng_qp_stats *s)
{
	(void)arg;
	if (dev == 0)
		qp_seen = *s;
}

/* The 6th and 12th frames the parent sends are lost: the responder NAKs
 * the gap or the requester's timer fires, the lost packets are sent
 * again, every message completes, and the QP's counters say so. */
START_TEST(rc_drop_resends)
{
	static const struct emu_eng_stats_sink sink = { .qp = qp_sink };
	char err[256];

	ck_assert_int_gt(emu_fault_add_text("drop dev=0 dir=tx every=6 limit=2",
					    err, sizeof(err)), 0);
	pair_up(NULL, MSGS, 7, 16);
	send_all();
	child_done();
	ck_assert_uint_eq(port_drops(EMU_WIRE_DROP_FAULT), 2);
	emu_eng_set_stats_sink(&sink);
	emu_eng_stats_flush();
	emu_eng_set_stats_sink(NULL);
	ck_assert_uint_eq(qp_seen.qpn, pa.qp.qpn);
	ck_assert_uint_ge(qp_seen.retransmits, 1);
	ck_assert_uint_ge(qp_seen.naks_rcvd + qp_seen.timeouts, 1);
	ck_assert_uint_ge(qp_seen.tx_pkts, MSGS * 3 + 2);
}
END_TEST

/* One READ response lost: the responses behind it (the rest of that
 * READ's and the following READs') each imply the same NAK, but the loss
 * costs one retry (IBA 9.7.5.1.3 and 9.7.6.1.3: the requester resends
 * from the first missing PSN once), so retry_count 1 suffices; the READ
 * goes again asking only for what did not arrive, and every READ
 * completes with the responder's bytes.  READS stays within the 2^2
 * responder resources eng_test.c gives a QP. */
#define READS 4
START_TEST(rc_read_loss_one_retry)
{
	const char *dir = getenv("MLX5EMU_TEST_CAPTURE_DIR");
	static const struct emu_eng_stats_sink sink = { .qp = qp_sink };
	char err[256], capture[512];
	unsigned int bad = 0;
	int status;

	if (dir)
		snprintf(capture, sizeof(capture), "%s/rc_read_loss.pcap", dir);
	ck_assert_int_gt(emu_fault_add_text("drop dev=0 dir=rx "
					    "bth=RC_READ_RESPONSE_MIDDLE nth=2",
					    err, sizeof(err)), 0);
	pair_up(dir ? capture : NULL, SERVE_READS, 1, 16);
	memset(pa.mr.buf, 0, MSGS * MSG_LEN);
	for (unsigned int i = 0; i < READS; i++)
		ent_post1(&pa.qp, MLX5_OPCODE_RDMA_READ,
			  MLX5_WQE_CTRL_CQ_UPDATE, 0, &pa.mr, i * MSG_LEN,
			  MSG_LEN, peer_addr + i * MSG_LEN, peer_rkey);
	for (unsigned int i = 0; i < READS; i++)
		ent_cqe_check(ent_cq_next(&pa.cq), &(struct ent_cqe_exp){
			.opcode = MLX5_CQE_REQ, .qpn = pa.qp.qpn,
			.wqe_op = MLX5_OPCODE_RDMA_READ,
			.wqe_counter = (uint16_t)i, .byte_cnt = MSG_LEN });
	for (unsigned int i = 0; i < READS * MSG_LEN; i++)
		bad += pa.mr.buf[i] != pattern(i);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(port_drops(EMU_WIRE_DROP_FAULT), 1);
	ck_assert_uint_eq(ent_q_counter_get(&pa.d, pa.ctr,
			  "req_transport_retries_exceeded"), 0);
	ck_assert_uint_ge(ent_q_counter_get(&pa.d, pa.ctr,
					    "implied_nak_seq_err"), 1);
	emu_eng_set_stats_sink(&sink);
	emu_eng_stats_flush();
	emu_eng_set_stats_sink(NULL);
	ck_assert_uint_eq(qp_seen.qpn, pa.qp.qpn);
	/* The READ that lost a response and every READ after it. */
	ck_assert_uint_ge(qp_seen.retransmits, 1);
	ck_assert_uint_le(qp_seen.retransmits, READS);
	kill(child, SIGKILL);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	child = 0;
	ent_dev_fini(&pa.d);
}
END_TEST

/* The responder's ACKs never arrive: after retry_count resends the
 * requester completes with "transport retry counter exceeded" (libmlx5:
 * IBV_WC_RETRY_EXC_ERR) with the vendor syndrome a ConnectX gives (0x81),
 * and counts the timeouts as a ConnectX does. */
START_TEST(rc_retry_exceeded)
{
	char err[256];

	ck_assert_int_gt(emu_fault_add_text("drop dev=0 dir=rx", err,
					    sizeof(err)), 0);
	pair_up(NULL, 1, 2, 12);	/* 16 ms */
	post_all(1);
	ent_cqe_check(ent_cq_next(&pa.cq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ_ERR, .qpn = pa.qp.qpn,
		.wqe_op = MLX5_OPCODE_SEND, .wqe_counter = 0,
		.syndrome = MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR,
		.vendor = 0x81 });
	child_done();	/* the message itself arrived */
	ck_assert_uint_eq(ent_q_counter_get(&pa.d, pa.ctr,
					    "local_ack_timeout_err"), 2);
	ck_assert_uint_eq(ent_q_counter_get(&pa.d, pa.ctr,
			  "req_transport_retries_exceeded"), 1);
	ck_assert_uint_ge(port_drops(EMU_WIRE_DROP_FAULT), 1);	/* its ACK */
}
END_TEST

/*
 * DC between the processes: the child's DCT (on an SRQ, key DC_KEY)
 * takes the parent DCI's SEND into the SRQ and its RDMA WRITE into its
 * memory, and answers its READ; a SEND with another key is dropped and counted by the DCT at
 * every attempt, and the DCI runs out of retries as in process.  That
 * SEND opens a second DCI's connection: a good-key WRITE behind it is
 * not taken either (only a connection's first packet opens it), so no
 * ACK of the WRITE acknowledges the dropped SEND; the WRITE is flushed.
 */
#define DC_KEY 0x1234abcd5678ULL
#define DC_RETRY 2

static uint32_t dct_create(struct side *s, uint32_t srqn)
{
	struct fwt_mbox m;
	void *c;

	fwt_mbox_init(&m, MLX5_CMD_OP_CREATE_DCT, 0, s->d.uid,
		      PRM_ST_SZ_BYTES(create_dct_in),
		      PRM_ST_SZ_BYTES(create_dct_out));
	c = PRM_ADDR_OF(create_dct_in, m.in, dct_context_entry);
	PRM_SET(dctc, c, pd, s->d.pd);
	PRM_SET(dctc, c, srqn_xrqn, srqn);
	PRM_SET(dctc, c, cqn, s->cq.cqn);
	PRM_SET64(dctc, c, dc_access_key, DC_KEY);
	PRM_SET(dctc, c, rre, 1);
	PRM_SET(dctc, c, rwe, 1);
	PRM_SET(dctc, c, port, 1);
	PRM_SET(dctc, c, mtu, MLX5_QPC_MTU_1K_BYTES);
	PRM_SET(dctc, c, my_addr_index, ENT_GID_V2_V4);
	PRM_SET(dctc, c, hop_limit, 64);
	fwt_exec(s->d.fw, &m);
	ck_fw_ok(&m);
	return PRM_GET(create_dct_out, m.out, dctn);
}

static uint32_t dct_violations(struct side *s, uint32_t dctn)
{
	struct fwt_mbox m;

	fwt_mbox_init(&m, MLX5_CMD_OP_QUERY_DCT, 0, s->d.uid,
		      PRM_ST_SZ_BYTES(query_dct_in),
		      PRM_ST_SZ_BYTES(query_dct_out));
	PRM_SET(query_dct_in, m.in, dctn, dctn);
	fwt_exec(s->d.fw, &m);
	ck_fw_ok(&m);
	return PRM_GET(dctc, PRM_ADDR_OF(query_dct_out, m.out,
					 dct_context_entry),
		       dc_access_key_violation_count);
}

/* The child: exits 0 when the SEND came into the SRQ whole, the WRITE
 * landed after it, and the DCT counted DC_RETRY + 1 key violations. */
static void dct_child_run(int to_parent, int from_parent, uint16_t port)
{
	struct ent_srq srq;
	struct side s;
	uint64_t addr;
	uint32_t dctn, go;
	const uint8_t *cqe;
	unsigned int bad = 0;

	side_init(&s, 1, wire_socket(1, &port), port, NULL);
	ent_srq_init(&s.d, &srq, 4, false, &s.cq, 0);
	ent_srq_post(&srq, s.mr.key, (uint64_t)(uintptr_t)s.mr.buf, MSG_LEN);
	dctn = dct_create(&s, srq.srqn);
	addr = (uint64_t)(uintptr_t)s.mr.buf + MSG_LEN;
	ck_assert(write(to_parent, &dctn, 4) == 4);
	ck_assert(write(to_parent, &addr, 8) == 8);
	ck_assert(write(to_parent, &s.mr.key, 4) == 4);
	cqe = ent_cq_next(&s.cq);
	if (!cqe || (cqe[63] >> 4) != MLX5_CQE_RESP_SEND ||
	    (ent_be32(cqe + 56) & 0xffffff) != dctn ||
	    ent_be32(cqe + 44) != MSG_LEN)
		_exit(10);
	ck_assert(read(from_parent, &go, 4) == 4);	/* all done */
	/* The WRITE has no CQE here: the engine thread, joined, is what
	 * orders its copy before these reads. */
	emu_eng_stop();
	for (unsigned int i = 0; i < 2 * MSG_LEN; i++)
		bad += s.mr.buf[i] != pattern(i);
	if (bad)
		_exit(2);
	if (dct_violations(&s, dctn) != DC_RETRY + 1)
		_exit(3);
	_exit(0);
}

/* A DC WQE (libmlx5 44's layout): control, the 48-byte datagram segment
 * (DC key; DCT number with the extended-AV bit; hop limit; GRH; the
 * GID), a remote address for a WRITE, one data segment. */
static void dc_post(struct ent_qp *dci, uint8_t op, uint32_t dctn,
		    uint64_t key, uint32_t off, uint32_t len, uint64_t raddr,
		    uint32_t rkey)
{
	uint8_t w[128] = { 0 }, *d = w + 64;

	ent_ctrl(w, dci->sq_pi, op, dci->qpn, op == MLX5_OPCODE_SEND ? 5 : 6,
		 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	put_be(w + 16, key, 8);
	put_be(w + 24, 0x80000000u | dctn, 4);
	w[16 + 27] = 64;
	put_be(w + 16 + 28, 0x40000000u | ENT_GID_V2_V4 << 20, 4);
	memcpy(w + 16 + 32, (uint8_t[16]){ [10] = 0xff, [11] = 0xff,
					   [12] = 127, [14] = 1, [15] = 2 },
	       16);
	if (op != MLX5_OPCODE_SEND) {
		ent_raddr(d, raddr, rkey);
		d += 16;
	}
	ent_dseg(d, len, pa.mr.key,
		 (uint64_t)(uintptr_t)pa.mr.buf + off);
	ent_sq_put(dci, w, 2);
	ent_sq_ring(dci);
}

START_TEST(dc_two_processes)
{
	const char *dir = getenv("MLX5EMU_TEST_CAPTURE_DIR");
	char capture[512];
	int up[2], down[2];
	uint32_t dctn, rkey, go = 1;
	struct ent_conn c;
	struct ent_qp dci, dci2;
	uint64_t raddr;
	uint8_t rgid[16] = { [10] = 0xff, [11] = 0xff, [12] = 127, [14] = 1,
			     [15] = 2 };

	if (dir)
		snprintf(capture, sizeof(capture), "%s/dc_two_processes.pcap",
			 dir);
	fork_child(dct_child_run, dir ? capture : NULL, up, down);
	ent_conn_default(&c);
	c.rgid = rgid;
	c.sgid_index = ENT_GID_V2_V4;
	c.retry_count = DC_RETRY;
	c.ack_timeout = 12;	/* 16 ms */
	ent_qp_create(&pa.d, &dci, &(struct ent_qp_cfg){
		.type = ENT_DCI, .log_sq = 6, .scq = &pa.cq, .rcq = &pa.cq });
	ent_qp_to_rts(&dci, NULL, &c);
	ent_qp_create(&pa.d, &dci2, &(struct ent_qp_cfg){
		.type = ENT_DCI, .log_sq = 6, .scq = &pa.cq, .rcq = &pa.cq });
	ent_qp_to_rts(&dci2, NULL, &c);
	ck_assert(read(up[0], &dctn, 4) == 4);
	ck_assert(read(up[0], &raddr, 8) == 8);
	ck_assert(read(up[0], &rkey, 4) == 4);
	for (unsigned int i = 0; i < 3 * MSG_LEN; i++)
		pa.mr.buf[i] = pattern(i);
	dc_post(&dci, MLX5_OPCODE_SEND, dctn, DC_KEY, 0, MSG_LEN, 0, 0);
	dc_post(&dci, MLX5_OPCODE_RDMA_WRITE, dctn, DC_KEY, MSG_LEN, MSG_LEN,
		raddr, rkey);
	ent_cqe_check(ent_cq_next(&pa.cq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ, .qpn = dci.qpn,
		.wqe_op = MLX5_OPCODE_SEND, .wqe_counter = 0,
		.byte_cnt = MSG_LEN });
	ent_cqe_check(ent_cq_next(&pa.cq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ, .qpn = dci.qpn,
		.wqe_op = MLX5_OPCODE_RDMA_WRITE, .wqe_counter = 2,
		.byte_cnt = MSG_LEN });
	/* READ back what the WRITE put there: RC READ responses return. */
	memset(pa.mr.buf + 2 * MSG_LEN, 0, MSG_LEN);
	dc_post(&dci, MLX5_OPCODE_RDMA_READ, dctn, DC_KEY, 2 * MSG_LEN,
		MSG_LEN, raddr, rkey);
	ent_cqe_check(ent_cq_next(&pa.cq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ, .qpn = dci.qpn,
		.wqe_op = MLX5_OPCODE_RDMA_READ, .wqe_counter = 4,
		.byte_cnt = MSG_LEN });
	for (unsigned int i = 0; i < MSG_LEN; i++)
		ck_assert_uint_eq(pa.mr.buf[2 * MSG_LEN + i],
				  pattern(MSG_LEN + i));
	/* Another key: the DCT drops it, the DCI gives up.  One packet, so
	 * the DCT counts one violation per attempt (each frame counts).  The
	 * WRITE behind it would land at offset 0 of the child's second
	 * buffer: it must not. */
	dc_post(&dci2, MLX5_OPCODE_SEND, dctn, DC_KEY + 1, 2 * MSG_LEN, 64, 0,
		0);
	dc_post(&dci2, MLX5_OPCODE_RDMA_WRITE, dctn, DC_KEY, 2 * MSG_LEN, 64,
		raddr, rkey);
	ent_cqe_check(ent_cq_next(&pa.cq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ_ERR, .qpn = dci2.qpn,
		.wqe_op = MLX5_OPCODE_SEND, .wqe_counter = 0,
		.syndrome = MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR,
		.vendor = 0x81 });
	ent_cqe_check(ent_cq_next(&pa.cq), &(struct ent_cqe_exp){
		.opcode = MLX5_CQE_REQ_ERR, .qpn = dci2.qpn,
		.wqe_op = MLX5_OPCODE_RDMA_WRITE, .wqe_counter = 2,
		.syndrome = MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
		.vendor = ENT_VENDOR_FLUSH });
	ck_assert(write(down[1], &go, 4) == 4);
	close(up[0]);
	close(down[1]);
	child_done();
	ent_dev_fini(&pa.d);	/* closes the capture */
}
END_TEST

/* Datagrams waiting on @fd now, taken. */
static unsigned int drain(int fd)
{
	uint8_t b[2048];
	unsigned int n = 0;

	while (recv(fd, b, sizeof(b), MSG_DONTWAIT) > 0)
		n++;
	return n;
}

/*
 * Requests of a deep window wait in the port's queue while passes add to
 * it, when the link goes through the kernel: the first seven leave at
 * once (a window under 8 deep: someone may wait for them), then 32 at a
 * time, and a pass that adds nothing sends what waits.  Without a thread
 * each progress call is one pass.  The peer is a plain socket on
 * 127.0.1.2 that never answers, so the window only grows (the ACK timer
 * is seconds away).
 */
START_TEST(deep_window_requests_leave_together)
{
	uint16_t port = 0;
	int peer = wire_socket(1, &port), fd = wire_socket(0, &port);
	unsigned int got = 0;

	ck_assert_int_eq(setenv("MLX5EMU_ENGINE_MODE", "inline", 1), 0);
	side_init(&pa, 0, fd, port, NULL);
	side_rts(&pa, 0x4242, 1, 7, 20);
	for (unsigned int i = 0; i < 44; i++) {
		ent_post1(&pa.qp, MLX5_OPCODE_RDMA_WRITE, 0, 0, &pa.mr, 0, 64,
			  0x10000, 0x1234);
		emu_eng_progress(EMU_ENG_WHY_DOORBELL);
		got += drain(peer);
		ck_assert_uint_eq(got, i < 7 ? i + 1 : i < 38 ? 7 : 39);
	}
	/* Nothing new in this pass: what waits goes. */
	emu_eng_progress(EMU_ENG_WHY_POLL);
	got += drain(peer);
	ck_assert_uint_eq(got, 44);
	close(peer);
}
END_TEST

static void teardown(void)
{
	emu_fault_clear();
	if (child_down >= 0)
		close(child_down);
	child_down = -1;
	if (child > 0)
		kill(child, SIGKILL);
}

static Suite *eng_wire_suite(void)
{
	Suite *s = suite_create("eng_wire");
	TCase *tc = tcase_create("rc");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, rc_two_processes);
	tcase_add_test(tc, rc_send_inv);
	tcase_add_test(tc, rc_drop_resends);
	tcase_add_test(tc, rc_retry_exceeded);
	tcase_add_test(tc, rc_read_loss_one_retry);
	tcase_add_test(tc, dc_two_processes);
	suite_add_tcase(s, tc);
	/* Two runs of the scenario: room for slow builds (sanitizers). */
	tc = tcase_create("paths");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, rc_same_frames_both_paths);
	suite_add_tcase(s, tc);
	tc = tcase_create("batching");
	tcase_add_test(tc, deep_window_requests_leave_together);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(eng_wire_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
