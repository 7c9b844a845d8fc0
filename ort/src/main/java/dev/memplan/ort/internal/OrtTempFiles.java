// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The files the ort runtime leaves in the temporary directory ({@code java.io.tmpdir}), and their
 * removal, whatever ends the process:
 * <ul>
 * <li>memplan's own: the graphs ONNX Runtime saves go into one folder per process,
 * {@code memplan-ort-<pid>-<random>/}, each file deleted once read, the folder by a shutdown hook
 * (a normal exit, {@code System.exit}, SIGTERM or SIGINT); after a SIGKILL the next process's first
 * use of the ort runtime deletes the folders of processes that no longer run.</li>
 * <li>ONNX Runtime Java's: it copies its native libraries (22 MB) into
 * {@code onnxruntime-java<N>/} and asks the JVM to delete them on exit, folder first, which fails
 * while the folder still holds them: every run leaves the folder behind, and a killed one the
 * libraries too. Once the libraries are loaded memplan deletes that folder (found through
 * {@code /proc/self/maps}: the folder this process mapped them from; Linux keeps a deleted mapped
 * file readable). Folders of dead processes are swept as memplan's are: owned by this user,
 * untouched for {@link #STALE}, holding only ORT's library files, none of them mapped by a running
 * process.</li>
 * </ul>
 * The sweeps read {@code /proc}; elsewhere they do nothing.
 */
final class OrtTempFiles {
    /** A folder younger than this may be one another process is filling right now. */
    static final Duration STALE = Duration.ofMinutes(2);
    static final String PREFIX = "memplan-ort-";
    private static final Pattern OWN = Pattern.compile(Pattern.quote(PREFIX) + "(\\d+)-.*");
    private static final Pattern ORT_JAVA = Pattern.compile("onnxruntime-java\\d*");
    /** The file names ORT Java copies out of its jar (libraries and their providers). */
    private static final Pattern ORT_LIBRARY = Pattern.compile("(lib)?(onnxruntime|dawn|webgpu_dawn)\\S*\\.(so|dylib|dll)");

    private static Path folder;
    /** The names made in {@link #folder}: each file and folder in it is numbered, as nobody else writes there. */
    private static long made;

    private OrtTempFiles() {
    }

    /**
     * {@return a new file name in this process's folder, for ORT to write (the caller deletes it)}
     * The folder is made on first use, with its shutdown hook, after sweeping dead processes' files.
     * Only this process writes there (the folder is its owner's alone), so a number names a file.
     */
    static synchronized Path newFile(String suffix) {
        try {
            return processFolder().resolve("saved-" + (++made) + suffix); // ORT writes it; only its unique name is wanted
        } catch (IOException e) {
            throw cannotMake(e);
        }
    }

    /** {@return a new empty folder in this process's folder (the caller deletes it)} */
    static synchronized Path newFolder(String prefix) {
        try {
            return Files.createDirectory(processFolder().resolve(prefix + (++made)));
        } catch (IOException e) {
            throw cannotMake(e);
        }
    }

    /** This process's folder, made on first use with its shutdown hook, after sweeping dead processes' files. */
    private static Path processFolder() throws IOException {
        if (folder == null || !Files.isDirectory(folder)) {
            sweep(tmpdir());
            folder = PrivateFolder.create(tmpdir(), PREFIX + ProcessHandle.current().pid() + "-");
            made = 0;
            Path processFolder = folder;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(processFolder), "memplan-ort-cleanup"));
        }
        return folder;
    }

    private static UncheckedIOException cannotMake(IOException e) {
        return new UncheckedIOException("cannot make a file in the temporary directory " + tmpdir()
                + " for ONNX Runtime's graph: " + e.getMessage() + "; check its free space and permissions"
                + " (java.io.tmpdir)", e);
    }

    /**
     * Deletes the folder ORT Java copied its libraries into for this process, once they are loaded,
     * and that folder's library files. Not with a build that carries execution providers (the GPU
     * jar: {@code libonnxruntime_providers_shared}): ORT Java copies those into the same folder when
     * an application adds one, so the folder must stay until exit.
     *
     * @param ortJava the class loader of ORT Java's classes
     */
    static void removeOrtJavaCopy(ClassLoader ortJava) {
        for (String platform : List.of("linux-x64", "linux-aarch64")) {
            if (ortJava.getResource("ai/onnxruntime/native/" + platform + "/libonnxruntime_providers_shared.so") != null) {
                return;
            }
        }
        for (Path dir : mappedOrtJavaFolders(Path.of("/proc/self/maps"))) {
            if (onlyOrtLibraries(dir)) {
                deleteTree(dir);
            }
        }
    }

    /** Deletes, under {@code tmp}, memplan's folders of dead processes and ORT Java's stale copies. */
    static void sweep(Path tmp) {
        if (!Files.isDirectory(Path.of("/proc/self"))) {
            return; // no process table to tell the dead from the living
        }
        List<Path> ortJava = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(tmp)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                Matcher own = OWN.matcher(name);
                if (own.matches() && ownedByMe(p) && !alive(own.group(1))) {
                    deleteTree(p);
                } else if (ORT_JAVA.matcher(name).matches() && ownedByMe(p) && stale(p) && onlyOrtLibraries(p)) {
                    ortJava.add(p);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            return; // an unreadable temporary directory: nothing to sweep
        }
        if (!ortJava.isEmpty()) {
            Set<Path> inUse = Set.copyOf(mappedByRunningProcesses()); // by name: tmpdir may be reached through a link
            for (Path p : ortJava) {
                if (!inUse.contains(p.getFileName())) {
                    deleteTree(p);
                }
            }
        }
    }

    static Path tmpdir() {
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    private static boolean alive(String pid) {
        try {
            return ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
        } catch (NumberFormatException e) {
            return true; // not a pid memplan wrote: leave it
        }
    }

    private static boolean ownedByMe(Path p) {
        try {
            return Files.getOwner(p, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"))
                    && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static boolean stale(Path p) {
        try {
            FileTime modified = Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS);
            return modified.toInstant().isBefore(Instant.now().minus(STALE));
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether {@code dir} holds nothing but regular files named as ORT Java's libraries (or nothing). */
    private static boolean onlyOrtLibraries(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.allMatch(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)
                    && ORT_LIBRARY.matcher(f.getFileName().toString()).matches());
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    /** The {@code onnxruntime-java<N>} folders a maps file ({@code /proc/<pid>/maps}) maps files from. */
    static List<Path> mappedOrtJavaFolders(Path maps) {
        List<Path> out = new ArrayList<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(maps);
        } catch (IOException | UncheckedIOException e) {
            return out; // not Linux, or the process ended
        }
        for (String line : lines) {
            int slash = line.indexOf('/');
            if (slash < 0) {
                continue;
            }
            String file = line.substring(slash);
            if (file.endsWith(" (deleted)")) {
                file = file.substring(0, file.length() - " (deleted)".length());
            }
            Optional.ofNullable(Path.of(file).getParent()).filter(d -> d.getFileName() != null
                    && ORT_JAVA.matcher(d.getFileName().toString()).matches() && !out.contains(d)).ifPresent(out::add);
        }
        return out;
    }

    /** The names of the ORT Java folders mapped by any process this user can read the maps of. */
    private static List<Path> mappedByRunningProcesses() {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString()
                .chars().allMatch(Character::isDigit))) {
            for (Path proc : procs) {
                mappedOrtJavaFolders(proc.resolve("maps")).forEach(d -> out.add(d.getFileName()));
            }
        } catch (IOException | UncheckedIOException e) {
            // the table changed while read: what was read is still right
        }
        return out;
    }

    /** Deletes {@code root} and everything under it, without following links; what cannot go stays. */
    static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // another process's file, or already gone
                }
            }
        } catch (IOException | UncheckedIOException e) {
            // gone already
        }
    }
}
