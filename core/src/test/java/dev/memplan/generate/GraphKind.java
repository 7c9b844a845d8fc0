// SPDX-License-Identifier: Apache-2.0
package dev.memplan.generate;

import java.util.Locale;

/** The synthetic graph families, each buildable at a target owner count (1k to 1M). */
public enum GraphKind {
    /** Decoder-only transformer, GPT-2 small dimensions; layers scale. */
    TRANSFORMER,
    /** ResNet-style CNN of basic blocks; blocks scale. */
    RESNET,
    /** Stacked U-Nets with long skip connections; convolutions per level and stacks scale. */
    UNET,
    /** Wide seeded random DAG with thousands of values live at once. */
    RANDOM_DAG,
    /** A plain static chain. */
    CHAIN;

    /** The seed {@link #ofOwners(int)} uses for the random DAG. */
    public static final long DEFAULT_SEED = 42;

    /**
     * {@return about {@code targetOwners} owners (exactly, for the random DAG and the chain)}
     *
     * @param targetOwners the owner count to approach
     */
    public GeneratedGraph ofOwners(int targetOwners) {
        return ofOwners(targetOwners, DEFAULT_SEED);
    }

    /**
     * {@return about {@code targetOwners} owners; {@code seed} matters only to the random DAG}
     *
     * @param targetOwners the owner count to approach
     * @param seed the random seed (used by random DAGs only)
     */
    public GeneratedGraph ofOwners(int targetOwners, long seed) {
        switch (this) {
            case TRANSFORMER:
                return TransformerGenerator.ofOwners(targetOwners);
            case RESNET:
                return ResNetGenerator.ofOwners(targetOwners);
            case UNET:
                return UNetGenerator.ofOwners(targetOwners);
            case RANDOM_DAG:
                return RandomDagGenerator.ofOwners(targetOwners, seed);
            case CHAIN:
            default:
                return ChainGenerator.ofOwners(targetOwners);
        }
    }

    /**
     * {@return the kind named {@code name}, case-insensitive, {@code -} or {@code _} between words}
     *
     * @param name the kind's name, in any case
     */
    public static GraphKind parse(String name) {
        String key = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        if (key.equals("RANDOMDAG") || key.equals("DAG")) {
            return RANDOM_DAG;
        }
        for (GraphKind k : values()) {
            if (k.name().equals(key)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown graph kind '" + name + "'; use one of transformer, resnet,"
                + " unet, random_dag, chain");
    }
}
