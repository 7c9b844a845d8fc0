// SPDX-License-Identifier: Apache-2.0
package dev.memplan.langchain4j;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A text cut into the model's inputs as LangChain4j's BERT encoder cuts it, so that the embeddings
 * match LangChain4j's own: the same tokenizer calls, partitions of at most
 * {@value #MAX_PARTITION_TOKENS} tokens that never split a word, each partition encoded again with
 * its special tokens. Thread-safe: the tokenizer is.
 */
final class BertTokens implements AutoCloseable {
    /** 512 positions less the [CLS] and [SEP] tokens. */
    static final int MAX_PARTITION_TOKENS = 510;

    private static final String WORD_CONTINUATION = "##";

    /** One run's inputs: token ids, attention mask, token types; its weight in the text's average. */
    record Partition(long[] inputIds, long[] attentionMask, long[] tokenTypeIds, int weight) {
        int length() {
            return inputIds.length;
        }
    }

    /** A tokenized text: its partitions and its token count, special tokens included. */
    record Tokenized(List<Partition> partitions, int tokenCount) {
    }

    private final HuggingFaceTokenizer tokenizer;

    private BertTokens(HuggingFaceTokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    /** Opens a {@code tokenizer.json}; no padding, as LangChain4j opens it. */
    static BertTokens open(Path tokenizerFile) {
        try {
            return new BertTokens(HuggingFaceTokenizer.newInstance(tokenizerFile, Map.of("padding", "false")));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot read the tokenizer " + tokenizerFile.getFileName()
                    + " (" + e.getMessage() + "); give the model's tokenizer.json", e);
        }
    }

    Tokenized tokenize(String text) {
        List<String> tokens = tokenizer.tokenize(text);
        List<Partition> partitions = new ArrayList<>();
        for (List<String> words : partition(tokens, MAX_PARTITION_TOKENS)) {
            Encoding encoding = tokenizer.encode(asText(words), true, false);
            partitions.add(new Partition(encoding.getIds(), encoding.getAttentionMask(), encoding.getTypeIds(),
                    words.size()));
        }
        return new Tokenized(List.copyOf(partitions), tokens.size());
    }

    /**
     * The tokens between the first ([CLS]) and the last ([SEP]) in runs of at most {@code size}, a run
     * ending before a word's continuation ("##...") rather than inside the word.
     */
    static List<List<String>> partition(List<String> tokens, int size) {
        List<List<String>> runs = new ArrayList<>();
        int last = tokens.size() - 1;
        int from = 1;
        while (from < last) {
            int to = from + size;
            if (to >= last) {
                to = last;
            } else {
                while (tokens.get(to).startsWith(WORD_CONTINUATION)) {
                    to--;
                }
            }
            runs.add(tokens.subList(from, to));
            from = to;
        }
        return runs;
    }

    /** The partition's text: rebuilt from its tokens when that tokenizes back to them, else the tokens joined. */
    private String asText(List<String> words) {
        String sentence = tokenizer.buildSentence(words);
        List<String> again = tokenizer.tokenize(sentence);
        boolean roundTrips = again.size() >= 2 && again.subList(1, again.size() - 1).equals(words);
        return roundTrips ? sentence : String.join("", words);
    }

    @Override
    public void close() {
        tokenizer.close();
    }
}
