/* SPDX-License-Identifier: MIT */
/*
 * emu/device/dev_link.h -- what an Ethernet port's link looks like to
 * verbs: the IB width and speed mlx5_ib reports for the link mode the port
 * runs at (PTYS eth_proto_oper), for ib_query_port and the sysfs rate file
 * alike.
 */
#ifndef MLX5EMU_EMU_DEVICE_DEV_LINK_H
#define MLX5EMU_EMU_DEVICE_DEV_LINK_H

#include <stdbool.h>
#include <stdint.h>

/* The kernel's enum ib_port_width and enum ib_port_speed (ib_verbs.h):
 * the active_width / active_speed codes of a port. */
enum {
	EMU_IB_WIDTH_1X = 1,
	EMU_IB_WIDTH_2X = 16,
	EMU_IB_WIDTH_4X = 2,
	EMU_IB_WIDTH_8X = 4,
	EMU_IB_WIDTH_12X = 8,
};

enum {
	EMU_IB_SPEED_SDR = 1,
	EMU_IB_SPEED_DDR = 2,
	EMU_IB_SPEED_QDR = 4,
	EMU_IB_SPEED_FDR10 = 8,
	EMU_IB_SPEED_FDR = 16,
	EMU_IB_SPEED_EDR = 32,
	EMU_IB_SPEED_HDR = 64,
	EMU_IB_SPEED_NDR = 128,
};

/*
 * mlx5_ib's translate_eth_proto_oper (drivers/infiniband/hw/mlx5/main.c):
 * the width and speed of the one link mode set in eth_proto_oper, from the
 * extended set (ext) or the legacy one.  0, or -EINVAL (no such single
 * mode: width and speed are left as they were; mlx5_query_port_roce starts
 * from 4X QDR, so that is what an unknown or absent mode shows).
 */
int emu_link_ib_rate(bool ext, uint32_t eth_proto_oper, uint8_t *width,
		     uint16_t *speed);

#endif /* MLX5EMU_EMU_DEVICE_DEV_LINK_H */
