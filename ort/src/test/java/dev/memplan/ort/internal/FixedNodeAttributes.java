// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The attributes a rule test gives its one node: known, with these integer and string attributes,
 * no integer lists, at opset {@code opset}.
 */
record FixedNodeAttributes(Map<String, Long> integers, Map<String, String> strings, long opsetVersion)
        implements NodeAttributes {

    @Override
    public boolean known(int nodeId) {
        return true;
    }

    @Override
    public OptionalLong integer(int nodeId, String name) {
        Long v = integers.get(name);
        return v == null ? OptionalLong.empty() : OptionalLong.of(v);
    }

    @Override
    public Optional<long[]> integers(int nodeId, String name) {
        return Optional.empty();
    }

    @Override
    public Optional<String> string(int nodeId, String name) {
        return Optional.ofNullable(strings.get(name));
    }

    @Override
    public OptionalLong opset() {
        return OptionalLong.of(opsetVersion);
    }
}
