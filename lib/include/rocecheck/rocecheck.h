/* librocecheck: RDMA (RoCEv2) fabric health — the umbrella header.
 * Include this one; it pulls in every part of the public API. */
#ifndef ROCECHECK_ROCECHECK_H
#define ROCECHECK_ROCECHECK_H

#include <rocecheck/context.h>
#include <rocecheck/inventory.h>
#include <rocecheck/counters.h>
#include <rocecheck/probe.h>
#include <rocecheck/dcb.h>
#include <rocecheck/cap.h>
#include <rocecheck/launch.h>
#include <rocecheck/mesh.h>
#include <rocecheck/agent.h>
#include <rocecheck/analysis.h>
#include <rocecheck/preflight.h>
#include <rocecheck/heatmap.h>
#include <rocecheck/sweep.h>
#include <rocecheck/topology.h>
#include <rocecheck/pcie.h>
#include <rocecheck/monitor.h>
#include <rocecheck/exporter.h>

#endif
