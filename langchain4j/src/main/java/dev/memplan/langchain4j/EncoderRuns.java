// SPDX-License-Identifier: Apache-2.0
package dev.memplan.langchain4j;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import dev.memplan.ort.BudgetedOrtSession;
import java.nio.LongBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Runs partitions through the encoder inside the budget: one ORT run for a group of partitions
 * (padded to the longest, the padding masked), leased at its predicted bytes, the token vectors
 * copied out while the lease is held. Thread-safe.
 */
final class EncoderRuns {
    static final String INPUT_IDS = "input_ids";
    static final String ATTENTION_MASK = "attention_mask";
    static final String TOKEN_TYPE_IDS = "token_type_ids";

    private final OrtEnvironment environment;
    private final BudgetedOrtSession session;
    private final boolean takesTokenTypes;
    private final Duration leaseTimeout;

    EncoderRuns(OrtEnvironment environment, BudgetedOrtSession session, Set<String> inputNames,
                Duration leaseTimeout) {
        for (String required : List.of(INPUT_IDS, ATTENTION_MASK)) {
            if (!inputNames.contains(required)) {
                throw new IllegalArgumentException("the model has no input '" + required + "' (its inputs: "
                        + inputNames + "); give a BERT-style encoder");
            }
        }
        this.environment = environment;
        this.session = session;
        this.takesTokenTypes = inputNames.contains(TOKEN_TYPE_IDS);
        this.leaseTimeout = leaseTimeout;
    }

    /**
     * The token vectors of each partition, {@code [partition][token][hidden]}, the padding's rows
     * included.
     *
     * @throws NoRoomException when the budget had no room for the run within the lease timeout
     */
    float[][][] run(List<BertTokens.Partition> partitions) throws OrtException, InterruptedException {
        int rows = partitions.size();
        int columns = partitions.stream().mapToInt(BertTokens.Partition::length).max().orElseThrow();
        long[] shape = {rows, columns};
        try (OnnxTensor ids = tensor(partitions, shape, BertTokens.Partition::inputIds);
             OnnxTensor mask = tensor(partitions, shape, BertTokens.Partition::attentionMask);
             OnnxTensor types = tensor(partitions, shape, BertTokens.Partition::tokenTypeIds)) {
            Map<String, OnnxTensor> inputs = new HashMap<>();
            inputs.put(INPUT_IDS, ids);
            inputs.put(ATTENTION_MASK, mask);
            if (takesTokenTypes) {
                inputs.put(TOKEN_TYPE_IDS, types);
            }
            Optional<float[][][]> vectors = session.run(inputs, leaseTimeout,
                    result -> (float[][][]) result.get(0).getValue());
            if (vectors.isEmpty()) {
                throw new NoRoomException(session.leaseBytes(inputs), session.budget().capacityBytes(), leaseTimeout);
            }
            return vectors.get();
        }
    }

    private interface Column {
        long[] of(BertTokens.Partition partition);
    }

    /** A {@code [rows, columns]} tensor of one input, each row's tail zero (padding, masked out). */
    private OnnxTensor tensor(List<BertTokens.Partition> partitions, long[] shape, Column column)
            throws OrtException {
        int columns = (int) shape[1];
        long[] values = new long[partitions.size() * columns];
        for (int row = 0; row < partitions.size(); row++) {
            long[] own = column.of(partitions.get(row));
            System.arraycopy(own, 0, values, row * columns, own.length);
        }
        return OnnxTensor.createTensor(environment, LongBuffer.wrap(values), shape);
    }
}
