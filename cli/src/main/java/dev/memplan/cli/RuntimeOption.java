// SPDX-License-Identifier: Apache-2.0
package dev.memplan.cli;

import dev.memplan.ort.OrtModel;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** {@code --runtime}: the executor whose memory {@code plan} reports, each one {@link RuntimeFigures}. */
enum RuntimeOption {
    /** memplan's own executor (the default). */
    MEMPLAN("memplan") {
        @Override
        RuntimeFigures figures(OrtModel.Level level, OrtModel.UnmodelledKernels unmodelled,
                               Map<String, List<String>> inputDims) {
            return RuntimeFigures.MEMPLAN;
        }
    },
    /** ONNX Runtime's CPU arena, predicted beside memplan's plan. */
    ORT("ort") {
        @Override
        RuntimeFigures figures(OrtModel.Level level, OrtModel.UnmodelledKernels unmodelled,
                               Map<String, List<String>> inputDims) {
            return new OrtRuntimeFigures(level, unmodelled, inputDims);
        }
    };

    private final String label;

    RuntimeOption(String label) {
        this.label = label;
    }

    /** {@return the name {@code --runtime} takes and the reports print} */
    String label() {
        return label;
    }

    /**
     * The runtime's figures at its settings.
     *
     * @param level      ONNX Runtime's optimization level ({@code --ort-level})
     * @param inputDims  the input dims memplan's plan took ({@code --input-dims}), for ORT's graph too
     * @param unmodelled what ONNX Runtime's prediction does with a kernel without a rule
     * @return the figures
     */
    abstract RuntimeFigures figures(OrtModel.Level level, OrtModel.UnmodelledKernels unmodelled,
                                    Map<String, List<String>> inputDims);

    @Override
    public String toString() {
        return label;
    }

    /**
     * Reads {@code --runtime}, any case. For a value it does not know, picocli names the choices:
     * "expected one of [memplan, ort] but was 'x'".
     */
    static final class Converter implements ITypeConverter<RuntimeOption> {
        @Override
        public RuntimeOption convert(String value) {
            for (RuntimeOption option : values()) {
                if (option.label.equalsIgnoreCase(value)) {
                    return option;
                }
            }
            throw new TypeConversionException("unknown runtime '" + value + "'");
        }
    }

    /** Reads {@code --ort-level}: none, basic, extended or all, or ONNX Runtime's own names, any case. */
    static final class LevelConverter implements ITypeConverter<OrtModel.Level> {
        @Override
        public OrtModel.Level convert(String value) {
            try {
                return OrtModel.Level.of(value);
            } catch (IllegalArgumentException e) { // picocli then names the choices
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** Reads {@code --ort-unmodelled}: refuse or allowance, any case. */
    static final class UnmodelledConverter implements ITypeConverter<OrtModel.UnmodelledKernels> {
        @Override
        public OrtModel.UnmodelledKernels convert(String value) {
            try {
                return OrtModel.UnmodelledKernels.valueOf(value.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) { // picocli then names the choices
                throw new TypeConversionException("unknown --ort-unmodelled '" + value + "'");
            }
        }
    }
}
