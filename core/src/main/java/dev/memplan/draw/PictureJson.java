// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memplan.io.JsonOutput;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The data the page draws, as JSON: the picture in columns (one array per owner field), so a
 * page with 10,000 owners stays small and quick to parse. Colours come from {@link OpColors}, so
 * the page and the SVG agree.
 */
final class PictureJson {
    private static final ObjectMapper MAPPER = JsonOutput.mapper();

    private PictureJson() {
    }

    /** {@code picture} as JSON text, through the one JSON escape ({@link JsonOutput}). */
    static String toText(PictureData picture) {
        try {
            return MAPPER.writeValueAsString(toJson(picture));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a tree of strings and numbers always writes", e);
        }
    }

    /** {@code picture} as a JSON object. */
    static ObjectNode toJson(PictureData picture) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("title", picture.title());
        ObjectNode bindings = root.putObject("bindings");
        picture.bindings().forEach(bindings::put);
        root.put("engine", picture.engine());
        root.put("positions", picture.positions());
        strings(root.putArray("nodes"), List.of(picture.nodeNames()));
        strings(root.putArray("nodeOps"), List.of(picture.nodeOps()));
        root.put("naive", picture.naiveBytes());
        root.put("bound", picture.lowerBoundBytes());
        root.put("boundPosition", picture.boundPosition());
        ArrayNode live = root.putArray("live");
        for (long b : picture.liveBytes()) {
            live.add(b);
        }

        OpColors colors = OpColors.of(picture);
        List<String> ops = colors.ops();
        Map<String, Integer> opIndex = new HashMap<>();
        ArrayNode opArray = root.putArray("ops");
        for (String op : ops) {
            opIndex.put(op, opIndex.size());
            ObjectNode o = opArray.addObject();
            o.put("name", op);
            o.put("color", colors.color(op));
            o.put("count", colors.count(op));
        }
        root.put("otherColor", OpColors.OTHER);
        root.put("distinctOps", colors.distinct().size());

        ObjectNode owners = root.putObject("owners");
        ArrayNode value = owners.putArray("value");
        ArrayNode name = owners.putArray("name");
        ArrayNode op = owners.putArray("op");
        ArrayNode dtype = owners.putArray("dtype");
        ArrayNode shape = owners.putArray("shape");
        ArrayNode bound = owners.putArray("boundShape");
        ArrayNode bytes = owners.putArray("bytes");
        ArrayNode def = owners.putArray("def");
        ArrayNode end = owners.putArray("end");
        ObjectNode inPlace = owners.putObject("inPlace"); // owner index -> [[name, op, def, end], ...]
        int index = 0;
        for (DrawnOwner o : picture.owners()) {
            if (!o.inPlace().isEmpty()) {
                ArrayNode segs = inPlace.putArray(Integer.toString(index));
                for (DrawnOwner.Segment seg : o.inPlace()) {
                    segs.addArray().add(seg.name()).add(seg.opType()).add(seg.def()).add(seg.useEnd());
                }
            }
            index++;
            value.add(o.valueId());
            name.add(o.name());
            op.add(opIndex.get(o.opType()));
            dtype.add(o.dataType());
            shape.add(o.shape());
            bound.add(o.boundShape());
            bytes.add(o.bytes());
            def.add(o.def());
            end.add(o.useEnd());
        }
        ArrayNode layouts = root.putArray("layouts");
        for (Layout l : picture.layouts()) {
            ObjectNode n = layouts.addObject();
            n.put("name", l.name());
            n.put("peak", l.peakBytes());
            ArrayNode offsets = n.putArray("offsets");
            for (long x : l.offsets()) {
                offsets.add(x);
            }
            if (l.hasSlots()) {
                ArrayNode slots = n.putArray("slots");
                for (int x : l.slots()) {
                    slots.add(x);
                }
                ArrayNode caps = n.putArray("capacities");
                for (long x : l.slotCapacities()) {
                    caps.add(x);
                }
            }
        }
        ArrayNode cf = root.putArray("controlFlow");
        for (ControlFlowPanel panel : picture.controlFlow()) {
            ObjectNode n = cf.addObject();
            n.put("node", panel.nodeName());
            n.put("op", panel.opType());
            n.put("position", panel.position());
            if (panel.transientNeed().isPresent()) {
                n.put("transientNeed", panel.transientNeed().getAsLong());
            } else {
                n.putNull("transientNeed");
            }
            ArrayNode bodies = n.putArray("bodies");
            for (ControlFlowPanel.Body body : panel.bodies()) {
                ObjectNode b = bodies.addObject();
                b.put("attribute", body.attribute());
                if (body.needBytes().isPresent()) {
                    b.put("need", body.needBytes().getAsLong());
                } else {
                    b.putNull("need");
                }
                if (body.picture() != null) {
                    b.set("picture", toJson(body.picture()));
                } else {
                    b.putNull("picture");
                }
            }
        }
        return root;
    }

    private static void strings(ArrayNode array, List<String> values) {
        values.forEach(array::add);
    }
}
