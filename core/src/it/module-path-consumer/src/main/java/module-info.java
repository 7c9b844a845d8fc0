// SPDX-License-Identifier: Apache-2.0
/** A modular application that plans with memplan. */
module memplan.consumer {
    requires dev.memplan;
}
