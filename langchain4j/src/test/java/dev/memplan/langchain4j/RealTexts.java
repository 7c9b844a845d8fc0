// SPDX-License-Identifier: Apache-2.0
package dev.memplan.langchain4j;

import dev.langchain4j.data.document.Document;
import dev.langchain4j.data.document.DocumentSplitter;
import dev.langchain4j.data.document.splitter.DocumentSplitters;
import dev.langchain4j.data.segment.TextSegment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Real English text every Debian machine carries: the licences under /usr/share/common-licenses,
 * then the packages' copyright files, in name order, cut by LangChain4j's recursive document
 * splitter as a LangChain4j application cuts its documents.
 */
final class RealTexts {
    private static final Path LICENCES = Path.of("/usr/share/common-licenses");
    private static final Path PACKAGE_DOCS = Path.of("/usr/share/doc");
    /** Characters per segment and overlap: a paragraph or two, a common setting. */
    private static final int SEGMENT_CHARS = 1000;
    private static final int OVERLAP_CHARS = 100;

    private RealTexts() {
    }

    /** The first {@code count} segments; fails when the machine has too little text. */
    static List<TextSegment> segments(int count) {
        DocumentSplitter splitter = DocumentSplitters.recursive(SEGMENT_CHARS, OVERLAP_CHARS);
        List<TextSegment> segments = new ArrayList<>(count);
        for (String text : documents()) {
            for (TextSegment segment : splitter.split(Document.from(text))) {
                segments.add(segment);
                if (segments.size() == count) {
                    return segments;
                }
            }
        }
        throw new IllegalStateException("only " + segments.size() + " segments of text under " + LICENCES
                + " and " + PACKAGE_DOCS + "; " + count + " asked");
    }

    /** Whole licences, each longer than one partition of the encoder. */
    static List<String> longTexts(int count) {
        return documents().stream().filter(t -> t.length() > 8_000).limit(count).toList();
    }

    private static List<String> documents() {
        List<Path> files = new ArrayList<>(sorted(LICENCES));
        for (Path dir : sorted(PACKAGE_DOCS)) {
            Path copyright = dir.resolve("copyright");
            if (Files.isRegularFile(copyright)) {
                files.add(copyright);
            }
        }
        List<String> texts = new ArrayList<>();
        for (Path file : files) {
            String text = readUtf8(file);
            if (text != null && !text.isBlank()) {
                texts.add(text);
            }
        }
        return texts;
    }

    private static List<Path> sorted(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> !Files.isSymbolicLink(p)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The file's text, or null when it is not UTF-8 or not readable. */
    private static String readUtf8(Path file) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (CharacterCodingException e) {
            return null;
        } catch (IOException e) {
            return null;
        }
    }
}
