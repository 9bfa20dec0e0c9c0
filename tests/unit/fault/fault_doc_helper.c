/* SPDX-License-Identifier: MIT */
/*
 * What tests/unit/fault/doc_examples.py asks of the rule engine for the
 * examples of the guides in docs/:
 *
 *   fault_doc_helper rule N RULE   the canonical rule and the outcome of its
 *                                  first N matches: F failed, D delayed,
 *                                  X dropped, 2 duplicated, R reordered,
 *                                  C corrupted, E error CQE, L late CQE
 *                                  (X: a lost doorbell), . untouched
 *                                  (fault.seed 0),
 *                                  or "error: MESSAGE"
 *   fault_doc_helper config        loads the configuration (MLX5EMU_CONFIG,
 *                                  the environment) and prints every setting
 *                                  that is not at its default, or
 *                                  "error: MESSAGE"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/device/dev_config.h"
#include "emu/fault/fault.h"

static int rule(int n, const char *text)
{
	struct mlx5emu_fault_rule r;
	char err[EMU_FAULT_ERR_MAX], canon[EMU_FAULT_TEXT_MAX];
	uint64_t fired = 0;

	if (emu_fault_parse(text, &r, err, sizeof(err))) {
		printf("error: %s\n", err);
		return 0;
	}
	emu_fault_rule_format(&r, canon, sizeof(canon));
	printf("%s\t", canon);
	for (int k = 1; k <= n; k++) {
		bool f = emu_fault_fires(&r, (uint64_t)k,
					 (r.flags & MLX5EMU_FAULT_F_SEED) ? r.seed : 0) &&
			 (!r.limit || fired < r.limit);

		fired += f;
		/* an event rule's firing raises its event: F; a data-path
		 * rule's: E error CQE, L late CQE, X lost doorbell */
		putchar(!f ? '.' : r.action <= MLX5EMU_FAULT_CORRUPT ?
			"?FDX2RC"[r.action] :
			r.action == MLX5EMU_FAULT_CQE_ERROR ? 'E' :
			r.action == MLX5EMU_FAULT_CQE_DELAY ? 'L' :
			r.action == MLX5EMU_FAULT_DOORBELL_DROP ? 'X' : 'F');
	}
	putchar('\n');
	return 0;
}

static int config(void)
{
	struct emu_config_error err;
	struct emu_config *cfg = malloc(sizeof(*cfg));
	const struct emu_setting *s;
	size_t n;

	if (!cfg || emu_config_load(cfg, &err)) {
		printf("error: %s\n", cfg ? err.msg : "out of memory");
		free(cfg);
		return 0;
	}
	s = emu_config_settings(&n);
	for (size_t i = 0; i < n; i++) {
		char buf[EMU_CONFIG_FAULTS_MAX];

		if (cfg->source[i] == EMU_SRC_DEFAULT || s[i].id == EMU_SET_CONFIG_FILE)
			continue;
		emu_config_format(cfg, s[i].id, buf, sizeof(buf));
		printf("%s = %s\n", s[i].name, buf);
	}
	free(cfg);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "rule"))
		return rule(atoi(argv[2]), argv[3]);
	if (argc == 2 && !strcmp(argv[1], "config"))
		return config();
	fprintf(stderr, "usage: fault_doc_helper rule N RULE | config\n");
	return 2;
}
