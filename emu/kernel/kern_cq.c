/* SPDX-License-Identifier: MIT */
/*
 * The CQs on the kernel's completion EQs, as mlx5_core keeps them: a CQ is
 * added to its EQ's table once CREATE_CQ succeeded (mlx5_create_cq,
 * mlx5_eq_add_cq) and taken out before DESTROY_CQ is sent
 * (mlx5_core_destroy_cq, mlx5_eq_del_cq), so no completion event reaches a
 * CQ that is being destroyed.  A DESTROY_CQ that firmware then refuses
 * leaves the CQ out of the table, as in the kernel.  An EQE names a CQ by
 * number; kern_dev_cq_find is the lookup its dispatch makes.
 */
#include <errno.h>
#include <stdlib.h>

#include "emu/kernel/kern.h"

struct kern_cq {
	struct cds_list_head node;
	uint32_t cqn, eqn;
};

void kern_dev_cqs_init(struct kern_dev *kdev)
{
	pthread_mutex_init(&kdev->cq_lock, NULL);
	CDS_INIT_LIST_HEAD(&kdev->cqs);
}

static struct kern_cq *kern_cq_lookup(struct kern_dev *kdev, uint32_t cqn)
{
	struct kern_cq *cq;

	cds_list_for_each_entry(cq, &kdev->cqs, node)
		if (cq->cqn == cqn)
			return cq;
	return NULL;
}

int kern_dev_cq_attach(struct kern_dev *kdev, uint32_t eqn, uint32_t cqn)
{
	struct kern_cq *cq = calloc(1, sizeof(*cq));

	if (!cq)
		return -ENOMEM;
	cq->cqn = cqn;
	cq->eqn = eqn;
	pthread_mutex_lock(&kdev->cq_lock);
	cds_list_add(&cq->node, &kdev->cqs);
	pthread_mutex_unlock(&kdev->cq_lock);
	return 0;
}

void kern_dev_cq_detach(struct kern_dev *kdev, uint32_t cqn)
{
	struct kern_cq *cq;

	pthread_mutex_lock(&kdev->cq_lock);
	cq = kern_cq_lookup(kdev, cqn);
	if (cq)		/* else already out, as mlx5_eq_del_cq only warns */
		cds_list_del(&cq->node);
	pthread_mutex_unlock(&kdev->cq_lock);
	free(cq);
}

bool kern_dev_cq_find(struct kern_dev *kdev, uint32_t cqn, uint32_t *eqn)
{
	struct kern_cq *cq;

	pthread_mutex_lock(&kdev->cq_lock);
	cq = kern_cq_lookup(kdev, cqn);
	if (cq && eqn)
		*eqn = cq->eqn;
	pthread_mutex_unlock(&kdev->cq_lock);
	return cq != NULL;
}
