/* SPDX-License-Identifier: MIT */
/*
 * Device enumeration.  Device structs are created once per process and
 * outlive every list that names them, as libibverbs' do: programs keep an
 * ibv_device * after ibv_free_device_list() and open it later.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "shell/abi_export.h"
#include "backend/backend.h"
#include "backend/mana.h"
#include "provider/core/device.h"
#include "provider/core/fork_mem.h"

#define PROV_MAX_DEVICES 32

static pthread_mutex_t devices_lock = PTHREAD_MUTEX_INITIALIZER;
static struct prov_device *devices[PROV_MAX_DEVICES];
static int num_devices;

static struct prov_device *prov_device_find(const char *name)
{
	for (int i = 0; i < num_devices; i++)
		if (!strcmp(devices[i]->ibdev.name, name))
			return devices[i];
	return NULL;
}

static void copy_name(char *dst, size_t dstsz, const char *src, size_t srcsz)
{
	size_t len = strnlen(src, srcsz < dstsz ? srcsz : dstsz - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

static struct prov_device *prov_device_create(int index,
					      const struct mlx5be_device_info *info)
{
	struct prov_device *dev = calloc(1, sizeof(*dev));

	if (!dev)
		return NULL;
	dev->be_index = index;
	dev->node_guid = info->node_guid;
	dev->ibdev.node_type = IBV_NODE_CA;
	dev->ibdev.transport_type = IBV_TRANSPORT_IB;
	copy_name(dev->ibdev.name, sizeof(dev->ibdev.name), info->name,
		  sizeof(info->name));
	copy_name(dev->ibdev.dev_name, sizeof(dev->ibdev.dev_name),
		  info->dev_name, sizeof(info->dev_name));
	copy_name(dev->ibdev.dev_path, sizeof(dev->ibdev.dev_path),
		  info->dev_path, sizeof(info->dev_path));
	copy_name(dev->ibdev.ibdev_path, sizeof(dev->ibdev.ibdev_path),
		  info->ibdev_path, sizeof(info->ibdev_path));
	return dev;
}

/* Brings the process's device table up to date with the backend; 0 or
 * an errno. */
static int prov_devices_add(const struct mlx5be_device_info *infos, int n,
			    bool mana)
{
	for (int i = 0; i < n; i++) {
		struct prov_device *dev = prov_device_find(infos[i].name);

		if (dev) {
			dev->be_index = i;
			continue;
		}
		if (num_devices == PROV_MAX_DEVICES)
			return ENOMEM;
		dev = prov_device_create(i, &infos[i]);
		if (!dev)
			return ENOMEM;
		dev->mana = mana;
		devices[num_devices++] = dev;
	}
	return 0;
}

/* The mlx5 devices, then the MANA ones (backend/mana.h). */
static int prov_devices_scan(void)
{
	struct mlx5be_device_info infos[PROV_MAX_DEVICES];
	int n = mlx5be_get()->get_devices(infos, PROV_MAX_DEVICES);
	int ret;

	if (n < 0)
		return -n;
	ret = prov_devices_add(infos, n, false);
	if (ret)
		return ret;
	n = manabe_get()->get_devices(infos, PROV_MAX_DEVICES);
	if (n < 0)
		return -n;
	return prov_devices_add(infos, n, true);
}

struct prov_device *prov_device_by_index(int index)
{
	struct prov_device *dev = NULL;

	pthread_mutex_lock(&devices_lock);
	if (!prov_devices_scan())
		for (int i = 0; i < num_devices; i++)
			if (!devices[i]->mana && devices[i]->be_index == index)
				dev = devices[i];
	pthread_mutex_unlock(&devices_lock);
	return dev;
}

/* libibverbs' ibverbs_init(), once: fork tracking on request (an env
 * variable set to anything but "0"), a warning when it cannot be had. */
static void prov_devices_first_list(void)
{
	static bool done;
	const char *v = getenv("RDMAV_FORK_SAFE"), *w = getenv("IBV_FORK_SAFE");

	if (done)
		return;
	done = true;
	if (((v && strcmp(v, "0")) || (w && strcmp(w, "0"))) && prov_fork_init())
		fprintf(stderr, "libibverbs: Warning: fork()-safety requested "
			"but init failed\n");
}

MLX5EMU_ABI(ibv_get_device_list);
struct ibv_device **mlx5emu_abi_ibv_get_device_list(int *num)
{
	struct ibv_device **list;
	int ret;

	pthread_mutex_lock(&devices_lock);
	prov_devices_first_list();
	ret = prov_devices_scan();
	if (ret) {
		pthread_mutex_unlock(&devices_lock);
		errno = ret;
		return NULL;
	}
	list = calloc(num_devices + 1, sizeof(*list));
	if (!list) {
		pthread_mutex_unlock(&devices_lock);
		errno = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < num_devices; i++)
		list[i] = &devices[i]->ibdev;
	if (num)
		*num = num_devices;
	pthread_mutex_unlock(&devices_lock);
	return list;
}

MLX5EMU_ABI(ibv_free_device_list);
void mlx5emu_abi_ibv_free_device_list(struct ibv_device **list)
{
	/* The devices themselves live for the whole process. */
	free(list);
}

MLX5EMU_ABI(ibv_get_device_name);
const char *mlx5emu_abi_ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

MLX5EMU_ABI(ibv_get_device_guid);
__be64 mlx5emu_abi_ibv_get_device_guid(struct ibv_device *device)
{
	return to_prov_device(device)->node_guid;
}

MLX5EMU_ABI(ibv_get_device_index);
int mlx5emu_abi_ibv_get_device_index(struct ibv_device *device)
{
	struct prov_device *dev = to_prov_device(device);
	int slot;

	/* The kernel numbers all devices together: a MANA device's index is
	 * its uverbs number, after the mlx5 ones. */
	if (dev->mana && sscanf(device->dev_name, "uverbs%d", &slot) == 1)
		return slot;
	return dev->be_index;
}
