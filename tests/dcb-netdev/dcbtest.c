// SPDX-License-Identifier: GPL-2.0
/* dcbtest: a software Ethernet netdev ("dcbtest0") whose dcbnl_ops keep IEEE
 * DCB state in memory, so DCB clients exercise the kernel's real dcbnl code. */
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/dcbnl.h>

/* Fault injection: a non-zero value makes that set operation fail with
 * -EIO (writable at run time under /sys/module/dcbtest/parameters/). */
static int fail_setets;
module_param(fail_setets, int, 0644);
MODULE_PARM_DESC(fail_setets, "ieee_setets fails with -EIO");
static int fail_setpfc;
module_param(fail_setpfc, int, 0644);
MODULE_PARM_DESC(fail_setpfc, "ieee_setpfc fails with -EIO");
static int fail_setapp;
module_param(fail_setapp, int, 0644);
MODULE_PARM_DESC(fail_setapp, "ieee_setapp fails with -EIO");
static int fail_setbuffer;
module_param(fail_setbuffer, int, 0644);
MODULE_PARM_DESC(fail_setbuffer, "dcbnl_setbuffer fails with -EIO");
static int fail_setmaxrate;
module_param(fail_setmaxrate, int, 0644);
MODULE_PARM_DESC(fail_setmaxrate, "ieee_setmaxrate fails with -EIO");
/* Per-priority PFC frame counters start here, so readers see non-zero values. */
static unsigned int pfc_counter_base = 1000;
module_param(pfc_counter_base, uint, 0444);
MODULE_PARM_DESC(pfc_counter_base, "PFC requests[p] = base + p, indications[p] = 2 * base + p");

struct dcbtest_priv {
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct ieee_maxrate maxrate;
	struct dcbnl_buffer buffer;
	u8 dcbx;
};

static struct net_device *dcbtest_dev;

static netdev_tx_t dcbtest_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += skb->len;
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops dcbtest_netdev_ops = {
	.ndo_start_xmit = dcbtest_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

static int dcbtest_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct dcbtest_priv *p = netdev_priv(dev);

	*ets = p->ets;
	return 0;
}

static int dcbtest_setets(struct net_device *dev, struct ieee_ets *ets)
{
	struct dcbtest_priv *p = netdev_priv(dev);
	int i;

	if (fail_setets)
		return -EIO;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		if (ets->prio_tc[i] >= IEEE_8021QAZ_MAX_TCS)
			return -EINVAL;
	/* Keep ets_cap: it describes the device, not the request. */
	memcpy(p->ets.tc_tx_bw, ets->tc_tx_bw, sizeof(p->ets.tc_tx_bw));
	memcpy(p->ets.tc_rx_bw, ets->tc_rx_bw, sizeof(p->ets.tc_rx_bw));
	memcpy(p->ets.tc_tsa, ets->tc_tsa, sizeof(p->ets.tc_tsa));
	memcpy(p->ets.prio_tc, ets->prio_tc, sizeof(p->ets.prio_tc));
	memcpy(p->ets.tc_reco_bw, ets->tc_reco_bw, sizeof(p->ets.tc_reco_bw));
	memcpy(p->ets.tc_reco_tsa, ets->tc_reco_tsa, sizeof(p->ets.tc_reco_tsa));
	memcpy(p->ets.reco_prio_tc, ets->reco_prio_tc, sizeof(p->ets.reco_prio_tc));
	p->ets.willing = ets->willing;
	p->ets.cbs = ets->cbs;
	return 0;
}

static int dcbtest_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct dcbtest_priv *p = netdev_priv(dev);
	int i;

	*pfc = p->pfc;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		pfc->requests[i] = pfc_counter_base + i;
		pfc->indications[i] = 2ULL * pfc_counter_base + i;
	}
	return 0;
}

static int dcbtest_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct dcbtest_priv *p = netdev_priv(dev);

	if (fail_setpfc)
		return -EIO;
	p->pfc.pfc_en = pfc->pfc_en;
	p->pfc.mbc = pfc->mbc;
	p->pfc.delay = pfc->delay;
	return 0;
}

/* The kernel keeps the APP table (dcb_ieee_setapp); a driver reprograms its
 * classifier here. Like mlx5, only DSCP and PCP-style entries are taken. */
static int dcbtest_setapp(struct net_device *dev, struct dcb_app *app)
{
	if (fail_setapp)
		return -EIO;
	if (app->priority >= IEEE_8021QAZ_MAX_TCS)
		return -EINVAL;
	if (app->selector == IEEE_8021QAZ_APP_SEL_DSCP && app->protocol > 63)
		return -EINVAL;
	return dcb_ieee_setapp(dev, app);
}

static int dcbtest_delapp(struct net_device *dev, struct dcb_app *app)
{
	return dcb_ieee_delapp(dev, app);
}

static int dcbtest_getmaxrate(struct net_device *dev, struct ieee_maxrate *m)
{
	struct dcbtest_priv *p = netdev_priv(dev);

	*m = p->maxrate;
	return 0;
}

static int dcbtest_setmaxrate(struct net_device *dev, struct ieee_maxrate *m)
{
	struct dcbtest_priv *p = netdev_priv(dev);

	if (fail_setmaxrate)
		return -EIO;
	p->maxrate = *m;
	return 0;
}

static int dcbtest_getbuffer(struct net_device *dev, struct dcbnl_buffer *b)
{
	struct dcbtest_priv *p = netdev_priv(dev);

	*b = p->buffer;
	return 0;
}

static int dcbtest_setbuffer(struct net_device *dev, struct dcbnl_buffer *b)
{
	struct dcbtest_priv *p = netdev_priv(dev);
	u32 sum = 0;
	int i;

	if (fail_setbuffer)
		return -EIO;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (b->prio2buffer[i] >= DCBX_MAX_BUFFERS)
			return -EINVAL;
		sum += b->buffer_size[i];
	}
	if (sum > p->buffer.total_size)
		return -EINVAL;
	/* total_size is the device's, read only. */
	memcpy(p->buffer.prio2buffer, b->prio2buffer, sizeof(b->prio2buffer));
	memcpy(p->buffer.buffer_size, b->buffer_size, sizeof(b->buffer_size));
	return 0;
}

static u8 dcbtest_getdcbx(struct net_device *dev)
{
	struct dcbtest_priv *p = netdev_priv(dev);

	return p->dcbx;
}

/* dcbnl convention: 0 accepted, 1 refused. Only IEEE, host- or LLD-managed. */
static u8 dcbtest_setdcbx(struct net_device *dev, u8 mode)
{
	struct dcbtest_priv *p = netdev_priv(dev);

	if ((mode & DCB_CAP_DCBX_VER_CEE) || !(mode & DCB_CAP_DCBX_VER_IEEE) ||
	    (mode & DCB_CAP_DCBX_LLD_MANAGED && mode & DCB_CAP_DCBX_HOST))
		return 1;
	p->dcbx = mode;
	return 0;
}

static const struct dcbnl_rtnl_ops dcbtest_dcbnl_ops = {
	.ieee_getets = dcbtest_getets,
	.ieee_setets = dcbtest_setets,
	.ieee_getmaxrate = dcbtest_getmaxrate,
	.ieee_setmaxrate = dcbtest_setmaxrate,
	.ieee_getpfc = dcbtest_getpfc,
	.ieee_setpfc = dcbtest_setpfc,
	.ieee_setapp = dcbtest_setapp,
	.ieee_delapp = dcbtest_delapp,
	.getdcbx = dcbtest_getdcbx,
	.setdcbx = dcbtest_setdcbx,
	.dcbnl_getbuffer = dcbtest_getbuffer,
	.dcbnl_setbuffer = dcbtest_setbuffer,
};

static void dcbtest_defaults(struct dcbtest_priv *p)
{
	int i;

	/* Like a NIC after reset: all priorities on TC 0, equal ETS shares. */
	p->ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		p->ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
		p->ets.tc_tx_bw[i] = i < 4 ? 13 : 12;
	}
	p->pfc.pfc_cap = IEEE_8021QAZ_MAX_TCS;
	p->pfc.delay = 0;
	p->buffer.total_size = 256 * 1024;
	p->buffer.buffer_size[0] = 128 * 1024;
	p->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
}

static void dcbtest_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &dcbtest_netdev_ops;
	dev->dcbnl_ops = &dcbtest_dcbnl_ops;
	dev->needs_free_netdev = true;
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;
}

static int __init dcbtest_init(void)
{
	struct net_device *dev;
	int err;

	dev = alloc_netdev(sizeof(struct dcbtest_priv), "dcbtest%d", NET_NAME_ENUM, dcbtest_setup);
	if (!dev)
		return -ENOMEM;
	dcbtest_defaults(netdev_priv(dev));
	eth_hw_addr_random(dev);
	err = register_netdev(dev);
	if (err) {
		free_netdev(dev);
		return err;
	}
	dcbtest_dev = dev;
	return 0;
}

static void __exit dcbtest_exit(void)
{
	/* Selector and protocol range of the entries tests add: DSCP 0-63 and
	 * Linux's PCP selector (255) 0-15. */
	static const struct { u8 sel; u16 n; } kinds[] = {
		{ IEEE_8021QAZ_APP_SEL_DSCP, 64 }, { 255, 16 },
	};
	struct dcb_app app;
	int k, i;

	/* The kernel's APP list is keyed by ifindex and outlives the device. */
	for (k = 0; k < ARRAY_SIZE(kinds); k++)
		for (i = 0; i < kinds[k].n; i++) {
			app.selector = kinds[k].sel;
			app.protocol = i;
			for (app.priority = 0; app.priority < IEEE_8021QAZ_MAX_TCS; app.priority++)
				dcb_ieee_delapp(dcbtest_dev, &app);
		}
	unregister_netdev(dcbtest_dev);
}

module_init(dcbtest_init);
module_exit(dcbtest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Software netdev with IEEE DCB (dcbnl) state, for tests");
