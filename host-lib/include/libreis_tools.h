/* SPDX-License-Identifier: MIT */
/*
 * libreis_tools.h - the host tools around libreis, in their own library
 * (libreis-tools.a / libreis-tools.so, pkg-config libreis-tools): vector
 * files, quantizers, k-means, image building, reference search and
 * calibration (REIS); RecFlash data, the locality-K trace and DLRM MLPs;
 * device groups of several drives (libreis_group.h).
 * They compute on the host and never talk to a drive themselves; a program
 * that only talks to a drive includes <libreis.h> and links libreis alone.
 * Layering: docs/libreis.md, Layers.
 */
#ifndef LIBREIS_TOOLS_H
#define LIBREIS_TOOLS_H

#include "libreis.h"

#include "libreis/libreis_tool_vecs.h"
#include "libreis/libreis_tool_quant.h"
#include "libreis/libreis_tool_kmeans.h"
#include "libreis/libreis_tool_image_build.h"
#include "libreis/libreis_tool_ref.h"
#include "libreis/libreis_tool_rf_data.h"
#include "libreis/libreis_tool_rf_trace.h"
#include "libreis/libreis_tool_dlrm.h"
#include "libreis/libreis_group.h"

#endif /* LIBREIS_TOOLS_H */
