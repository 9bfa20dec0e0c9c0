/* SPDX-License-Identifier: MIT */
/*
 * The command trace on a firmware (emu/trace/trace.h): lines written to a
 * file as commands run, text and JSON, the injected mark next to a
 * fault-injection hook (a separate slot), the virtual clock's lines (no
 * pid, virtual durations), off costs a missing tracer, a
 * file per process with %p, detach, and whole lines with consecutive
 * sequence numbers from many threads at once.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "emu/base/clock.h"
#include "emu/device/dev_config.h"
#include "emu/fault/fault.h"
#include "emu/firmware/fw.h"
#include "emu/trace/trace.h"
#include "prm/prm.h"
#include "prm/prm_cmd.h"

static char dir[64];
static char file[256];
static struct emu_fw *fw;

static void setup(void)
{
	struct emu_fw_config cfg;

	snprintf(dir, sizeof(dir), "/tmp/mlx5emu-trace-test-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/trace.txt", dir);
	emu_fw_config_default(&cfg);
	fw = emu_fw_create(&cfg);
	ck_assert_ptr_nonnull(fw);
}

static void teardown(void)
{
	char cmd[400];

	emu_trace_detach(fw);
	emu_fw_destroy(fw);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void configure(enum emu_trace_format f, bool elide, const char *path)
{
	struct emu_trace_config c = { .on = true, .fmt = f, .elide = elide };

	snprintf(c.file, sizeof(c.file), "%s", path);
	ck_assert_int_eq(emu_trace_configure(&c), 0);
}

static uint32_t alloc_pd(struct emu_fw *f)
{
	uint8_t in[PRM_ST_SZ_BYTES(alloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(alloc_pd_out)] = { 0 };

	PRM_SET(alloc_pd_in, in, opcode, MLX5_CMD_OP_ALLOC_PD);
	ck_assert_int_eq(emu_fw_cmd_exec(f, in, sizeof(in), out, sizeof(out)), 0);
	return emu_fw_out_status(out) ? 0 : PRM_GET(alloc_pd_out, out, pd);
}

static void dealloc_pd(struct emu_fw *f, uint32_t pd)
{
	uint8_t in[PRM_ST_SZ_BYTES(dealloc_pd_in)] = { 0 };
	uint8_t out[PRM_ST_SZ_BYTES(dealloc_pd_out)] = { 0 };

	PRM_SET(dealloc_pd_in, in, opcode, MLX5_CMD_OP_DEALLOC_PD);
	PRM_SET(dealloc_pd_in, in, pd, pd);
	ck_assert_int_eq(emu_fw_cmd_exec(f, in, sizeof(in), out, sizeof(out)), 0);
}

/* The file's lines, with the durations (" 1.2us" at the end) cut off. */
static int read_lines(const char *path, char lines[][512], int max)
{
	FILE *f = fopen(path, "r");
	char buf[65536];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		char *sp;

		ck_assert_msg(buf[strlen(buf) - 1] == '\n', "partial line: %s", buf);
		buf[strlen(buf) - 1] = '\0';
		sp = strrchr(buf, ' ');
		if (sp && buf[0] != '{' && strchr("0123456789", sp[1]))
			*sp = '\0';
		if (n < max) {
			ck_assert_uint_lt(strlen(buf), 512);
			memcpy(lines[n], buf, strlen(buf) + 1);
		}
		n++;
	}
	fclose(f);
	return n;
}

START_TEST(text_lines)
{
	char lines[8][512];
	uint32_t pd;

	configure(EMU_TRACE_TEXT, true, file);
	ck_assert_int_eq(emu_trace_attach(fw, "mlx5_7"), 0);
	pd = alloc_pd(fw);
	ck_assert_uint_ne(pd, 0);
	dealloc_pd(fw, pd);
	dealloc_pd(fw, pd);	/* gone: a failure */
	ck_assert_int_eq(read_lines(file, lines, 8), 3);
	ck_assert_str_eq(lines[0], "mlx5_7 #1 ALLOC_PD uid=0x0 op_mod=0x0 in{} -> OK out{pd=0x1}");
	ck_assert_str_eq(lines[1], "mlx5_7 #2 DEALLOC_PD uid=0x0 op_mod=0x0 in{pd=0x1} -> OK out{}");
	ck_assert_str_eq(lines[2], "mlx5_7 #3 DEALLOC_PD uid=0x0 op_mod=0x0 in{pd=0x1} -> "
			 "BAD_RES_STATE(0x9) syndrome=0xee000402(PD_INVALID) out{}");
}
END_TEST

START_TEST(json_lines)
{
	FILE *f;
	char buf[65536];
	int n = 0;

	configure(EMU_TRACE_JSON, true, file);
	ck_assert_int_eq(emu_trace_attach(fw, "mlx5_7"), 0);
	dealloc_pd(fw, alloc_pd(fw));
	f = fopen(file, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(buf, sizeof(buf), f)) {
		struct json_object *o = json_tokener_parse(buf), *v;

		ck_assert_ptr_nonnull(o);
		ck_assert(json_object_object_get_ex(o, "seq", &v));
		ck_assert_int_eq(json_object_get_int(v), n + 1);
		ck_assert(json_object_object_get_ex(o, "pid", &v));
		ck_assert_int_eq(json_object_get_int(v), getpid());
		ck_assert(json_object_object_get_ex(o, "duration_ns", &v));
		ck_assert(json_object_object_get_ex(o, "opcode", &v));
		ck_assert_str_eq(json_object_get_string(v),
				 n ? "DEALLOC_PD" : "ALLOC_PD");
		json_object_put(o);
		n++;
	}
	fclose(f);
	ck_assert_int_eq(n, 2);
}
END_TEST

/*
 * On the virtual clock (deterministic mode) the trace carries nothing of
 * the wall clock or the process: no pid, and each duration the virtual
 * time the command took (a delay fault's, here none).
 */
START_TEST(json_lines_virtual_clock)
{
	FILE *f;
	char buf[65536];
	int n = 0;

	emu_clock_set_virtual(true);
	configure(EMU_TRACE_JSON, true, file);
	ck_assert_int_eq(emu_trace_attach(fw, "mlx5_7"), 0);
	dealloc_pd(fw, alloc_pd(fw));
	f = fopen(file, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(buf, sizeof(buf), f)) {
		struct json_object *o = json_tokener_parse(buf), *v;

		ck_assert_ptr_nonnull(o);
		ck_assert(!json_object_object_get_ex(o, "pid", &v));
		ck_assert(json_object_object_get_ex(o, "duration_ns", &v));
		ck_assert_int_eq(json_object_get_int64(v), 0);
		json_object_put(o);
		n++;
	}
	fclose(f);
	ck_assert_int_eq(n, 2);
	emu_clock_set_virtual(false);
}
END_TEST

static bool fail_alloc_pd(void *arg, const void *in, size_t inlen,
			  uint16_t opcode, uint16_t op_mod, uint16_t uid,
			  uint8_t *status, uint32_t *syndrome)
{
	return opcode == MLX5_CMD_OP_ALLOC_PD;
}

/* Fault injection's hook and the trace's slot are independent. */
START_TEST(injected_marked)
{
	static const struct emu_fw_hooks hooks = { .pre_cmd = fail_alloc_pd };
	char lines[4][512];

	configure(EMU_TRACE_TEXT, true, file);
	ck_assert_int_eq(emu_trace_attach(fw, "mlx5_0"), 0);
	emu_fw_set_hooks(fw, &hooks);
	ck_assert_uint_eq(alloc_pd(fw), 0);
	emu_fw_set_hooks(fw, NULL);
	ck_assert_uint_ne(alloc_pd(fw), 0);
	ck_assert_int_eq(read_lines(file, lines, 4), 2);
	ck_assert_str_eq(lines[0], "mlx5_0 #1 ALLOC_PD uid=0x0 op_mod=0x0 in{} -> "
			 "INT_ERR(0x1) syndrome=0xee0000ff(INJECTED) injected out{}");
	ck_assert_str_eq(lines[1], "mlx5_0 #2 ALLOC_PD uid=0x0 op_mod=0x0 in{} -> OK out{pd=0x1}");
}
END_TEST

/* With the fault engine: the rule that fired is named, delays too. */
START_TEST(rules_named)
{
	char lines[4][512], err[256];
	int fail_id, delay_id;

	configure(EMU_TRACE_TEXT, true, file);
	ck_assert_int_eq(emu_trace_attach(fw, "mlx5_0"), 0);
	emu_fault_attach(fw, 0);
	delay_id = emu_fault_add_text("delay ms=1 opcode=ALLOC_PD", err, sizeof(err));
	ck_assert_int_gt(delay_id, 0);
	fail_id = emu_fault_add_text("fail opcode=ALLOC_PD nth=2", err, sizeof(err));
	ck_assert_int_gt(fail_id, 0);
	ck_assert_uint_ne(alloc_pd(fw), 0);
	ck_assert_uint_eq(alloc_pd(fw), 0);
	emu_fault_clear();
	ck_assert_uint_ne(alloc_pd(fw), 0);
	ck_assert_int_eq(read_lines(file, lines, 4), 3);
	snprintf(err, sizeof(err), "mlx5_0 #1 ALLOC_PD uid=0x0 op_mod=0x0 in{} -> OK "
		 "delayed(rule %d: delay opcode=ALLOC_PD ms=1) out{pd=0x1}", delay_id);
	ck_assert_str_eq(lines[0], err);
	snprintf(err, sizeof(err), "mlx5_0 #2 ALLOC_PD uid=0x0 op_mod=0x0 in{} -> "
		 "INT_ERR(0x1) syndrome=0xee0000ff(INJECTED) "
		 "delayed(rule %d: delay opcode=ALLOC_PD ms=1) "
		 "injected(rule %d: fail opcode=ALLOC_PD nth=2) out{}",
		 delay_id, fail_id);
	ck_assert_str_eq(lines[1], err);
	ck_assert_str_eq(lines[2], "mlx5_0 #3 ALLOC_PD uid=0x0 op_mod=0x0 in{} -> OK out{pd=0x2}");
}
END_TEST

START_TEST(off_installs_nothing)
{
	struct stat st;

	ck_assert_int_eq(emu_trace_configure(NULL), 0);
	ck_assert_int_eq(emu_trace_attach(fw, "mlx5_0"), 0);
	alloc_pd(fw);
	ck_assert_int_ne(stat(file, &st), 0);	/* nothing opened */
}
END_TEST

START_TEST(detach_stops)
{
	char lines[4][512];

	configure(EMU_TRACE_TEXT, true, file);
	ck_assert_int_eq(emu_trace_attach(fw, "mlx5_0"), 0);
	alloc_pd(fw);
	emu_trace_detach(fw);
	alloc_pd(fw);
	ck_assert_int_eq(read_lines(file, lines, 4), 1);
}
END_TEST

START_TEST(bad_file)
{
	struct emu_trace_config c = { .on = true, .fmt = EMU_TRACE_TEXT };

	snprintf(c.file, sizeof(c.file), "%s/no/such/dir/t", dir);
	ck_assert_int_eq(emu_trace_configure(&c), -ENOENT);
}
END_TEST

/* "%p": each process its own file; a forked child reopens. */
START_TEST(file_per_process)
{
	char path[300], lines[4][512];
	pid_t pid;
	int status;

	snprintf(path, sizeof(path), "%s/t.%%p", dir);
	configure(EMU_TRACE_TEXT, true, path);
	ck_assert_int_eq(emu_trace_attach(fw, "mlx5_0"), 0);
	alloc_pd(fw);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		alloc_pd(fw);
		alloc_pd(fw);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && !WEXITSTATUS(status));
	snprintf(path, sizeof(path), "%s/t.%d", dir, (int)getpid());
	ck_assert_int_eq(read_lines(path, lines, 4), 1);
	snprintf(path, sizeof(path), "%s/t.%d", dir, (int)pid);
	ck_assert_int_eq(read_lines(path, lines, 4), 2);
}
END_TEST

#define NTHREADS 8
#define NCMDS 250

static void *worker(void *arg)
{
	for (int i = 0; i < NCMDS / 2; i++)
		dealloc_pd(fw, alloc_pd(fw));
	return arg;
}

/* Many threads: every line whole, seq 1..N each exactly once, in order. */
START_TEST(concurrent_lines)
{
	pthread_t t[NTHREADS];
	FILE *f;
	char buf[4096];
	int n = 0;

	configure(EMU_TRACE_TEXT, true, file);
	ck_assert_int_eq(emu_trace_attach(fw, "mlx5_0"), 0);
	for (int i = 0; i < NTHREADS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, worker, NULL), 0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	f = fopen(file, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(buf, sizeof(buf), f)) {
		unsigned long seq;
		char op[32];

		ck_assert_int_eq(sscanf(buf, "mlx5_0 #%lu %31s uid=", &seq, op), 2);
		ck_assert_uint_eq(seq, (unsigned long)n + 1);
		ck_assert(!strcmp(op, "ALLOC_PD") || !strcmp(op, "DEALLOC_PD"));
		ck_assert_ptr_nonnull(strstr(buf, " -> OK out{"));
		ck_assert_int_eq(buf[strlen(buf) - 1], '\n');
		n++;
	}
	fclose(f);
	ck_assert_int_eq(n, NTHREADS * NCMDS);
}
END_TEST

/* The settings, read by name from a device configuration. */
START_TEST(config_from_settings)
{
	struct emu_config ec;
	struct emu_config_error err;
	struct emu_trace_config c;

	emu_config_defaults(&ec);
	emu_trace_config_from(&ec, &c);
	ck_assert(!c.on);
	ck_assert(c.elide);
	ck_assert_ptr_nonnull(emu_config_find("trace.mode"));
	ck_assert_ptr_nonnull(emu_config_find("trace.file"));
	ck_assert_ptr_nonnull(emu_config_find("trace.elide_defaults"));
	ck_assert_int_eq(emu_config_set(&ec, "trace.mode", "json:/tmp/x.jsonl",
					EMU_SRC_ENV, NULL, &err), 0);
	emu_trace_config_from(&ec, &c);
	ck_assert(c.on);
	ck_assert_int_eq(c.fmt, EMU_TRACE_JSON);
	ck_assert_str_eq(c.file, "/tmp/x.jsonl");
	ck_assert_int_ne(emu_config_set(&ec, "trace.mode", "xml", EMU_SRC_ENV,
					NULL, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, "MLX5EMU_TRACE"));
}
END_TEST

static Suite *trace_sink_suite(void)
{
	Suite *s = suite_create("trace_sink");
	TCase *tc = tcase_create("sink");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, text_lines);
	tcase_add_test(tc, json_lines);
	tcase_add_test(tc, json_lines_virtual_clock);
	tcase_add_test(tc, injected_marked);
	tcase_add_test(tc, rules_named);
	tcase_add_test(tc, off_installs_nothing);
	tcase_add_test(tc, detach_stops);
	tcase_add_test(tc, bad_file);
	tcase_add_test(tc, file_per_process);
	tcase_add_test(tc, concurrent_lines);
	tcase_add_test(tc, config_from_settings);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_sink_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
