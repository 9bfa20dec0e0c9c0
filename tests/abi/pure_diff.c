/* SPDX-License-Identifier: MIT */
/*
 * Prints what libibverbs' pure functions answer over their whole input range.
 * Run once on Debian's rdma-core and once on the drop-in libraries: the two
 * outputs must be identical (pure_diff.sh).
 */
#include <stdio.h>

#include <infiniband/verbs.h>

int main(void)
{
	for (int i = -2; i < 40; i++) {
		printf("node %d %s\n", i, ibv_node_type_str(i));
		printf("port %d %s\n", i, ibv_port_state_str(i));
		printf("event %d %s\n", i, ibv_event_type_str(i));
		printf("wc %d %s\n", i, ibv_wc_status_str(i));
		printf("rate %d mult %d mbps %d\n", i, ibv_rate_to_mult(i),
		       ibv_rate_to_mbps(i));
	}
	for (int m = -1; m <= 500; m++)
		printf("mult %d -> %d\n", m, mult_to_ibv_rate(m));
	for (int r = 0; r < 40; r++) {
		int mbps = ibv_rate_to_mbps(r);

		printf("mbps %d -> %d, %d -> %d\n", mbps, mbps_to_ibv_rate(mbps),
		       mbps + 1, mbps_to_ibv_rate(mbps + 1));
	}
	return 0;
}
