// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.MemplanException;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs ONNX Runtime's load of a model in a child JVM ({@link IsolatedOrtLoadMain}) and watches it.
 * ORT is native code that trusts the model: a hostile one can crash it (SIGFPE in a kernel's shape
 * arithmetic) or make it fold constants into gigabytes. In the server's own process either kills
 * the server; in a child it becomes memplan's one-line refusal. The child gets its own temporary
 * folder (ORT Java's library copy, the JVM's crash report), deleted when it ends, whatever ended it.
 *
 * <p>The watch polls the child's resident memory ({@code /proc/<pid>/status}; elsewhere only the
 * time is watched) and stops it past its {@link OrtLoadSettings}.
 */
final class IsolatedOrtLoad {
    /** Exit codes of {@link IsolatedOrtLoadMain}; anything else is a crash. */
    static final int EXIT_REFUSED = 10;
    static final int EXIT_UNAVAILABLE = 11;
    static final String MESSAGE_FILE = "message.txt";
    static final String CRASH_FILE = "hs_err.log";
    private static final Pattern CRASH_SIGNAL = Pattern.compile("#\\s+(SIG[A-Z]+) \\(0x");
    private static final Pattern RESIDENT = Pattern.compile("(?m)^VmRSS:\\s+(\\d+) kB");
    private static final long POLL_MILLIS = 10;
    private static final List<String> SIGNALS = List.of("SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP",
            "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM");

    /** The load's heap: small, it only reads the model's graph. */
    static final List<String> LOAD_HEAP = List.of("-Xmx128m");

    private final String mainClass;
    private final List<Path> classPath;
    private final List<String> heap;

    IsolatedOrtLoad(String mainClass, List<Path> classPath) {
        this(mainClass, classPath, LOAD_HEAP);
    }

    IsolatedOrtLoad(String mainClass, List<Path> classPath, List<String> heap) {
        this.mainClass = mainClass;
        this.classPath = List.copyOf(classPath);
        this.heap = List.copyOf(heap);
    }

    /**
     * The load as memplan runs it: {@link IsolatedOrtLoadMain} on memplan's jars, ORT Java's and
     * JavaCPP's (it reads the new session's arena through {@link OrtCApi}).
     */
    static IsolatedOrtLoad ofOrtJava() {
        return withOrtCApi(IsolatedOrtLoadMain.class.getName(), LOAD_HEAP);
    }

    /**
     * A child that calls ORT's C API through memplan's JNI library ({@link OrtCApi}): memplan's
     * classes, ORT Java's, JavaCPP's, and protobuf where memplan runs from its classes rather than
     * its jar (its own build; the jar carries it, relocated).
     */
    static IsolatedOrtLoad withOrtCApi(String mainClass, List<String> heap) {
        List<Path> classPath = new ArrayList<>(memplanClassPath());
        classPath.add(location(ai.onnxruntime.OrtEnvironment.class));
        classPath.add(location(org.bytedeco.javacpp.Loader.class));
        try {
            classPath.add(location(Class.forName("com.google.protobuf.Message")));
        } catch (ClassNotFoundException e) {
            // relocated inside memplan's jar
        }
        return new IsolatedOrtLoad(mainClass, classPath.stream().distinct().toList(), heap);
    }

    /** {@return the child's class path} */
    List<Path> classPath() {
        return classPath;
    }

    /**
     * Where the child finds memplan-ort's classes and memplan's, which they name
     * ({@link MemplanException}): one entry when they are one jar, as in the command line's.
     */
    static List<Path> memplanClassPath() {
        return List.of(location(IsolatedOrtLoad.class), location(MemplanException.class)).stream().distinct().toList();
    }

    /**
     * Loads {@code model} into ONNX Runtime at {@code level} in a child JVM, which saves the graph
     * ORT runs to {@code saved}.
     *
     * @throws MemplanException   with ORT's reason when it refuses the model; naming the signal when
     *                            ORT crashed; naming the limit when the load passed it
     * @throws OrtUnavailable     when ORT Java cannot start in the child
     */
    void save(Path model, String level, Path saved, OrtLoadSettings limits) {
        // the child runs in its own folder: a path relative to the caller's must not reach it as is
        run(List.of(model.toAbsolutePath().toString(), level, saved.toAbsolutePath().toString()), limits,
                "loading the model at level " + level);
    }

    /**
     * Runs kernel probe models in a child JVM ({@link KernelProbeMain}) on the same class path.
     *
     * @return one result line per probe, in order
     * @throws MemplanException naming the signal when ORT crashed, or the limit the child passed
     */
    static List<String> probeKernels(List<ModelProto> probes, OrtLoadSettings limits) {
        Path folder = OrtTempFiles.newFolder("probes-");
        try {
            for (int i = 0; i < probes.size(); i++) {
                try (OutputStream out = UncachedFileIo.newOutputStream(KernelProbeMain.probe(folder, i))) {
                    probes.get(i).writeTo(out); // a probe carries its constant inputs' data
                }
            }
            withOrtCApi(KernelProbeMain.class.getName(), LOAD_HEAP).run(
                    List.of(folder.toAbsolutePath().toString(), Integer.toString(probes.size())), limits,
                    "measuring the workspaces of kernels without a rule");
            List<String> lines = Files.readAllLines(folder.resolve(KernelProbeMain.RESULTS), StandardCharsets.UTF_8);
            if (lines.size() != probes.size()) {
                throw new MemplanException("the child measuring kernel workspaces answered " + lines.size() + " of "
                        + probes.size() + " probes; compile the model again, or use the memplan runtime for it");
            }
            return lines;
        } catch (IOException e) {
            throw new MemplanException("cannot pass kernel probes to the child JVM: " + e.getMessage()
                    + "; check the free space of the temporary directory (java.io.tmpdir)", e);
        } finally {
            OrtTempFiles.deleteTree(folder);
        }
    }

    /**
     * Runs the child with {@code args} after its message file and waits for it, watched.
     *
     * @param doing what the child does, for a crash's message ("loading the model at level ALL_OPT")
     * @throws MemplanException   with ORT's reason when it refuses; naming the signal when it crashed;
     *                            naming the limit when the child passed it
     * @throws OrtUnavailable     when ORT Java cannot start in the child
     */
    void run(List<String> args, OrtLoadSettings limits, String doing) {
        Path folder = OrtTempFiles.newFolder("child-");
        try {
            await(start(folder, List.of(), args), folder, limits, doing);
        } finally {
            OrtTempFiles.deleteTree(folder);
        }
    }

    /**
     * Starts the child of {@link #save} before the model to load is ready: it starts its JVM and loads
     * ONNX Runtime while this process checks the model, and then receives the model on its standard
     * input ({@link ModelHandOver}).
     *
     * @param model the model file, which the child starts reading at once ({@link ModelHandOver#preRead})
     * @param level the level ORT loads at
     * @param saved where the child saves the graph ORT runs
     * @return the started load; close it, whether or not it was given a model
     * @throws MemplanException when the model file's size cannot be read
     */
    StartedSave startSave(Path model, String level, Path saved) {
        Path folder = OrtTempFiles.newFolder("child-");
        try {
            long modelBytes = Files.size(model);
            return new StartedSave(start(folder, List.of("-XX:MaxDirectMemorySize=" + directMemory(modelBytes)),
                    List.of(IsolatedOrtLoadMain.MODEL_ON_STDIN, level, saved.toAbsolutePath().toString(),
                            model.toAbsolutePath().toString())), folder);
        } catch (IOException e) {
            OrtTempFiles.deleteTree(folder);
            throw new MemplanException("cannot read " + model + ": " + e.getMessage()
                    + "; check that the file is there and readable", e);
        } catch (RuntimeException e) {
            OrtTempFiles.deleteTree(folder);
            throw e;
        }
    }

    /** {@return room for the child's copy of a model of about {@code modelBytes}, and what memplan appends} */
    static long directMemory(long modelBytes) {
        return Math.max(0, Math.min(modelBytes, Integer.MAX_VALUE)) / 8 * 9 + (64L << 20);
    }

    /** Writes a model to a started child's standard input ({@link ModelHandOver}). */
    @FunctionalInterface
    interface Sender {
        void send(OutputStream childInput) throws IOException;
    }

    /** A {@link #save} whose child started before the model was ready. */
    static final class StartedSave implements AutoCloseable {
        private final Process child;
        private final Path folder;

        private StartedSave(Process child, Path folder) {
            this.child = child;
            this.folder = folder;
        }

        /**
         * Hands the child the model as {@code sender} writes it and waits for it as
         * {@link IsolatedOrtLoad#save} does.
         *
         * @throws MemplanException as {@link IsolatedOrtLoad#save}
         * @throws OrtUnavailable   when ORT Java cannot start in the child
         */
        void save(Sender sender, String level, OrtLoadSettings limits) {
            try (OutputStream in = child.getOutputStream()) {
                sender.send(in);
            } catch (IOException e) {
                // the child ended before reading it all: its exit says why
            }
            await(child, folder, limits, "loading the model at level " + level);
        }

        /** Stops the child if it still waits (the model was refused before ORT saw it) and removes its folder. */
        @Override
        public void close() {
            if (child.isAlive()) {
                stop(child);
            }
            OrtTempFiles.deleteTree(folder);
        }
    }

    /** Waits for a started child, watched, and turns how it ended into this process's answer. */
    private static void await(Process child, Path folder, OrtLoadSettings limits, String doing) {
        Optional<String> stopped = watch(child, limits);
        if (stopped.isPresent()) {
            throw new MemplanException(stopped.get());
        }
        int exit = child.exitValue();
        if (exit == 0) {
            return;
        }
        String message = readMessage(folder);
        if (exit == EXIT_REFUSED && message != null) {
            throw new MemplanException(message);
        }
        if (exit == EXIT_UNAVAILABLE && message != null) {
            throw new OrtUnavailable(message, null);
        }
        throw new MemplanException("ONNX Runtime crashed " + doing + " ("
                + crashCause(folder, exit) + ", in a child process; memplan's process is unharmed)"
                + "; this model does not run in ONNX Runtime: use the memplan runtime for it");
    }

    private Process start(Path folder, List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-XX:-UsePerfData", // no hsperfdata file in the shared temporary directory
                "-XX:ErrorFile=" + folder.resolve(CRASH_FILE), "-XX:-CreateCoredumpOnCrash",
                "-Djava.io.tmpdir=" + folder,
                "-cp", String.join(File.pathSeparator, classPath.stream().map(Path::toString).toList()),
                mainClass, folder.resolve(MESSAGE_FILE).toString()));
        command.addAll(1, heap);
        command.addAll(1 + heap.size(), jvmOptions);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(folder.toFile())
                .redirectErrorStream(true).redirectOutput(folder.resolve("output.txt").toFile());
        Map<String, String> env = builder.environment();
        env.remove("JAVA_TOOL_OPTIONS"); // a user's agent or heap setting is for the server, not this child
        env.remove("_JAVA_OPTIONS");
        env.remove("JDK_JAVA_OPTIONS");
        env.put(GLIBC_TUNABLES, withHugePages(env.get(GLIBC_TUNABLES)));
        try {
            return builder.start();
        } catch (IOException e) {
            throw new MemplanException("cannot start a JVM (" + command.get(0) + ") to load the model into ONNX"
                    + " Runtime: " + e.getMessage() + "; check java.home, or set -D" + OrtLoadSettings.MODE
                    + "=" + OrtLoadSettings.IN_PROCESS + " to load it in this process", e);
        }
    }

    static final String GLIBC_TUNABLES = "GLIBC_TUNABLES";
    static final String HUGE_PAGES = "glibc.malloc.hugetlb=1";

    /**
     * The child's glibc tunables: the caller's, with malloc's large blocks on transparent huge pages.
     * ORT's load touches each weight three or four times over in fresh blocks (the model's bytes, its
     * tensors, pre-packed copies, the saved file), and on 4 KiB pages their faults cost more than the
     * load's own work: bge-small's session takes 0.25-0.3 s with them and 1.0-1.2 s without
     * (ORT 1.30, one thread). Nothing ORT decides depends on the page size. Where the system has no
     * transparent huge pages, or glibc is older than 2.35, the tunable changes nothing.
     */
    static String withHugePages(String tunables) {
        if (tunables == null || tunables.isBlank()) {
            return HUGE_PAGES;
        }
        return tunables.contains("glibc.malloc.hugetlb=") ? tunables : tunables + ":" + HUGE_PAGES;
    }

    /** Waits for the child; stops it and says why when it passes a limit or this thread is interrupted. */
    private static Optional<String> watch(Process child, OrtLoadSettings limits) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(limits.timeoutSeconds());
        Path status = Path.of("/proc", Long.toString(child.pid()), "status");
        long peak = 0;
        try {
            while (!child.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                peak = Math.max(peak, residentBytes(status));
                if (peak > limits.memoryBytes()) {
                    stop(child);
                    return Optional.of("ONNX Runtime held more than " + (limits.memoryBytes() >> 20) + " MiB loading"
                            + " the model (at least " + (peak >> 20) + " MiB, folding its constants or reading its"
                            + " weights) and was stopped; if the model is that large, raise -D" + OrtLoadSettings.MEMORY
                            + ", else use the memplan runtime for it");
                }
                if (System.nanoTime() - deadline > 0) {
                    stop(child);
                    return Optional.of("ONNX Runtime took more than " + limits.timeoutSeconds() + " s to load the"
                            + " model and was stopped; if the model is that large, raise -D" + OrtLoadSettings.TIMEOUT
                            + ", else use the memplan runtime for it");
                }
            }
            return Optional.empty();
        } catch (InterruptedException e) {
            stop(child);
            Thread.currentThread().interrupt();
            return Optional.of("the load of the model into ONNX Runtime was interrupted and stopped; compile it again");
        }
    }

    private static void stop(Process child) {
        child.destroyForcibly();
        boolean interrupted = false;
        while (true) {
            try {
                child.waitFor(); // its folder is deleted next: it must be gone first
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The resident bytes a {@code /proc/<pid>/status} file gives; 0 when unreadable (not Linux, or ended). */
    static long residentBytes(Path status) {
        try {
            Matcher m = RESIDENT.matcher(Files.readString(status));
            return m.find() ? Long.parseLong(m.group(1)) * 1024 : 0;
        } catch (IOException | UncheckedIOException | NumberFormatException e) {
            return 0;
        }
    }

    private static String readMessage(Path folder) {
        try {
            String text = Files.readString(folder.resolve(MESSAGE_FILE), StandardCharsets.UTF_8).strip();
            return text.isEmpty() ? null : text;
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
    }

    /** The signal the JVM's crash report names, else the one the exit status carries, else the status. */
    static String crashCause(Path folder, int exit) {
        try {
            Matcher m = CRASH_SIGNAL.matcher(Files.readString(folder.resolve(CRASH_FILE), StandardCharsets.ISO_8859_1));
            if (m.find()) {
                return m.group(1);
            }
        } catch (IOException | UncheckedIOException e) {
            // no report: the exit status is all there is
        }
        int signal = exit - 128;
        return signal >= 1 && signal <= SIGNALS.size() ? SIGNALS.get(signal - 1) : "exit status " + exit;
    }

    /** The file or folder a class was loaded from, which a child JVM can put on its class path. */
    static Path location(Class<?> type) {
        CodeSource source = type.getProtectionDomain().getCodeSource();
        try {
            if (source != null && source.getLocation() != null && source.getLocation().getProtocol().equals("file")) {
                Path path = Path.of(source.getLocation().toURI());
                if (Files.exists(path)) {
                    return path;
                }
            }
        } catch (URISyntaxException | IllegalArgumentException e) {
            // not a file: said below
        }
        throw new MemplanException("cannot load the model into ONNX Runtime in a child process: " + type.getName()
                + " was not loaded from a jar or folder on disk (" + (source == null ? "no code source"
                : source.getLocation()) + "); set -D" + OrtLoadSettings.MODE + "=" + OrtLoadSettings.IN_PROCESS
                + " to load it in this process");
    }
}
