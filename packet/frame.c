/* SPDX-License-Identifier: Apache-2.0 */
#include "packet/frame.h"

struct buf_pool frame_pool = BUF_POOL_INIT(FRAME_BUF_SIZE);
