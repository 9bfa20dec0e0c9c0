/* SPDX-License-Identifier: MIT */
/* emu/firmware/fw.c -- creating and destroying the firmware of a device. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/firmware/fw_int.h"

static uint64_t fw_guid_from_mac(const uint8_t mac[6])
{
	/* mlx5 RoCE functions: mac[0..2]:03:00:mac[3..5] (emu/device). */
	return (uint64_t)mac[0] << 56 | (uint64_t)mac[1] << 48 |
	       (uint64_t)mac[2] << 40 | (uint64_t)0x03 << 32 |
	       (uint64_t)mac[3] << 16 | (uint64_t)mac[4] << 8 | mac[5];
}

void emu_fw_config_default(struct emu_fw_config *cfg)
{
	static const uint8_t mac[6] = { 0x02, 0xc9, 0x7f, 0x00, 0x00, 0x01 };

	memset(cfg, 0, sizeof(*cfg));
	cfg->num_ports = 1;
	for (unsigned int p = 0; p < EMU_FW_MAX_PORTS; p++) {
		memcpy(cfg->port[p].mac, mac, sizeof(mac));
		cfg->port[p].mac[5] = (uint8_t)(1 + p);
		cfg->port[p].mtu = 1500 + 22;
		cfg->port[p].link_up = true;
		cfg->port[p].eth_link_mode = MLX5E_CAUI_4_100GBASE_CR4_KR4;
	}
	cfg->node_guid = fw_guid_from_mac(cfg->port[0].mac);
	cfg->system_image_guid = cfg->node_guid;
	cfg->fw_rev_major = 22;
	cfg->fw_rev_minor = 36;
	cfg->fw_rev_subminor = 1010;
	snprintf(cfg->board_id, sizeof(cfg->board_id), "%s", "MT_0000000359");
	cfg->ieee_vendor_id = EMU_FW_IEEE_VENDOR_ID;
	cfg->pci_vendor_id = EMU_FW_PCI_VENDOR_ID;
	cfg->pci_device_id = EMU_FW_PCI_DEVICE_ID;
	cfg->caps = NULL;
}

static int fw_config_check(const struct emu_fw_config *cfg)
{
	if (cfg->num_ports < 1 || cfg->num_ports > EMU_FW_MAX_PORTS)
		return -EINVAL;
	if (memchr(cfg->board_id, 0, sizeof(cfg->board_id)) == NULL)
		return -EINVAL;
	if (cfg->ieee_vendor_id >> 24)
		return -EINVAL;
	for (unsigned int p = 0; p < cfg->num_ports; p++)
		if (cfg->port[p].mtu < EMU_FW_PORT_MIN_MTU ||
		    cfg->port[p].mtu > EMU_FW_PORT_MAX_MTU ||
		    cfg->port[p].eth_link_mode > 31 ||
		    !(FW_PTYS_EXT_ETH_CAP &
		      MLX5E_PROT_MASK(cfg->port[p].eth_link_mode)))
			return -EINVAL;
	return 0;
}

struct emu_fw *emu_fw_create(const struct emu_fw_config *cfg)
{
	struct emu_fw_caps *caps;
	struct emu_fw *fw;
	char why[160];
	int err;

	if (!cfg || fw_config_check(cfg)) {
		errno = EINVAL;
		return NULL;
	}
	caps = cfg->caps ? emu_fw_caps_dup(cfg->caps) : emu_fw_caps_new();
	if (!caps) {
		errno = ENOMEM;
		return NULL;
	}
	/* The identity input wins over the pages. */
	if (emu_fw_caps_set(caps, MLX5_CAP_GENERAL, "num_ports",
			    cfg->num_ports) ||
	    emu_fw_caps_set(caps, MLX5_CAP_GENERAL, "vhca_id", cfg->vhca_id) ||
	    emu_fw_caps_check(caps, why, sizeof(why))) {
		emu_fw_caps_free(caps);
		errno = EINVAL;
		return NULL;
	}
	fw = calloc(1, sizeof(*fw));
	if (!fw) {
		emu_fw_caps_free(caps);
		errno = ENOMEM;
		return NULL;
	}
	fw->cfg = *cfg;
	fw->caps = caps;
	fw->cfg.caps = caps;
	fw_clock_init(fw);
	atomic_init(&fw->hooks, NULL);
	atomic_init(&fw->engine, NULL);
	atomic_init(&fw->tracer, NULL);
	atomic_init(&fw->ncmds, 0);
	atomic_init(&fw->nfailed, 0);
	err = fw_ports_init(fw);
	if (err)
		goto err_free;
	fw_steer_init(fw);
	err = fw_tables_init(fw);
	if (err)
		goto err_steer;
	return fw;

err_steer:
	fw_steer_fini(fw);
	fw_ports_fini(fw);
err_free:
	emu_fw_caps_free(caps);
	free(fw);
	errno = -err;
	return NULL;
}

void emu_fw_destroy(struct emu_fw *fw)
{
	if (!fw)
		return;
	fw_tables_fini(fw);
	fw_steer_fini(fw);
	fw_ports_fini(fw);
	emu_fw_caps_free(fw->caps);
	free(fw);
}

const struct emu_fw_config *emu_fw_config_get(const struct emu_fw *fw)
{
	return &fw->cfg;
}
