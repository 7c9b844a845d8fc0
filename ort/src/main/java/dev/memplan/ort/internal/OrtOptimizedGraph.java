// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtSession;
import dev.memplan.MemplanException;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The graph ONNX Runtime runs: ORT rewrites a model when a session loads it (fusions, and on x86 at
 * level all the NCHWc layout), and saves the result when asked. The only class of memplan that
 * touches {@code ai.onnxruntime} types, so it is loaded only when the ort runtime is asked for;
 * {@link OrtRuntimeProfile} checks that ONNX Runtime Java is present before calling it.
 *
 * <p>ORT loads the model in a child JVM ({@link IsolatedOrtLoad}) unless {@link OrtLoadSettings} say
 * otherwise: a model that crashes ORT or makes it take gigabytes then costs a refusal, not the
 * server. What memplan's calls into ORT guarantee, in either process, whatever thread calls them:
 * ORT runs on a thread with a 16 MB stack ({@link BigStack}: ONNX Runtime 1.29 crashes the JVM
 * when its environment is first made on a 1 MB stack under a long command line); ORT prints
 * nothing (the environment memplan makes logs at FATAL only, and so do memplan's sessions: ORT's
 * log lines carry colours, its source paths and text from the model file); the model is checked
 * first ({@link OrtModelCheck}); and ORT Java's copy of its native library is removed once loaded
 * ({@link OrtTempFiles}).
 */
final class OrtOptimizedGraph {
    /** ORT Java's messages start with its status code: {@code Error code - ORT_FAIL - message: ...}. */
    private static final Pattern STATUS = Pattern.compile("(?s)Error code - (\\w+) - message: (.*)");
    /** A prefix of ORT's session errors that reads like a crash report, and says nothing of the cause. */
    private static final Pattern EXCEPTION_PREFIX = Pattern.compile("(?i)exception during initialization:\\s*");

    private static OrtEnvironment environment;

    private OrtOptimizedGraph() {
    }

    /**
     * Loads {@code model} into an ONNX Runtime CPU session at {@code level}, one intra-op thread,
     * and saves the graph the session runs to {@code saved}.
     *
     * @throws MemplanException naming the model and ORT's reason when ORT cannot load it, or what
     *                          {@link OrtModelCheck} refuses before ORT reads it
     */
    static void save(Path model, String level, Path saved) {
        OrtLoadSettings settings = OrtLoadSettings.fromSystemProperties(sizeIfReadable(model));
        if (settings.inProcess()) {
            saveCopyInThisProcess(model, level, saved);
            return;
        }
        // the child starts its JVM and ORT while this process checks the model
        try (IsolatedOrtLoad.StartedSave child = IsolatedOrtLoad.ofOrtJava().startSave(model, level, saved);
             OrtModelCheck.Checked checked = OrtModelCheck.beforeOrtReads(model)) {
            IsolatedOrtLoad.Sender sender = sender(model, checked);
            child.save(weightsApart(level, checked) ? out -> {
                ModelHandOver.askWeightsApart(out);
                sender.send(out);
            } : sender, level, settings);
        } catch (InternalError e) { // the mapped file shrank while its declarations were made or sent
            throw OrtModelCheck.changedWhileRead(model, e);
        }
    }

    /** How the child gets the checked model: the file it read and declarations appended, or all of it. */
    private static IsolatedOrtLoad.Sender sender(Path model, OrtModelCheck.Checked checked) {
        if (checked.externalData()) {
            return out -> ModelHandOver.sendFile(out, model); // read beside its data files
        }
        Optional<ModelHandOver.ModelBytes> appendix = ShapesOrtInfers.appendix(checked);
        if (appendix.isPresent() && ModelHandOver.fitsAfterPreRead(checked.bytes().remaining(), appendix.get().size())) {
            return out -> ModelHandOver.sendAppended(out, checked.unchangedCrc(model), appendix.get());
        }
        return out -> {
            ModelHandOver.sendBytes(out, ShapesOrtInfers.declared(checked));
            checked.unchangedCrc(model); // else the child is stopped: it may have been sent other bytes
        };
    }

    /**
     * Whether ORT saves the weights of the graph it runs beside it ({@link SavedWeights}). Not at level
     * none: ORT then saves an unchanged graph in the file's own node order, which memplan's replay of
     * ORT's order starts from, but a graph with its weights apart in its execution order. Not for a
     * model with branches or bodies: ORT 1.23 to 1.30 write a branch's weights twice then.
     */
    static boolean weightsApart(String level, OrtModelCheck.Checked checked) {
        return !level.equals("NO_OPT") && !ShapesOrtInfers.hasSubgraphs(checked.model().getGraph());
    }

    /** {@link #save} without a child: the checked model, declared, written to a file ORT reads. */
    private static void saveCopyInThisProcess(Path model, String level, Path saved) {
        Path declared = null;
        try {
            Path loaded;
            boolean weightsApart;
            try (OrtModelCheck.Checked checked = OrtModelCheck.beforeOrtReads(model)) {
                declared = OrtTempFiles.newFile(".onnx");
                loaded = ShapesOrtInfers.declareEveryValue(checked, declared) ? declared : model;
                checked.unchangedCrc(model); // the declared copy holds the bytes checked
                weightsApart = weightsApart(level, checked);
            } catch (InternalError e) { // the mapped file shrank while its declared copy was written
                throw OrtModelCheck.changedWhileRead(model, e);
            }
            saveInThisProcess(new ModelHandOver.Model(null, loaded, weightsApart), level, saved);
        } catch (MemplanException e) {
            if (e instanceof OrtUnavailable || declared == null || e.getMessage() == null
                    || !e.getMessage().contains(declared.toString())) {
                throw e;
            }
            // ORT names the file it loaded: the user's model, not memplan's copy of it
            throw new MemplanException(e.getMessage().replace(declared.toString(), model.toString()), e);
        } finally {
            if (declared != null) {
                OrtTempFiles.deleteTree(declared);
            }
        }
    }

    /** {@return the model file's size, or 0 when it cannot be read: the check says why next} */
    private static long sizeIfReadable(Path model) {
        try {
            return Files.size(model);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * Loads ONNX Runtime in this process and makes its environment, on a {@link BigStack} thread:
     * what a child started before its model does while it waits ({@link IsolatedOrtLoadMain}), with
     * memplan's library for reading the session's arena.
     *
     * @throws OrtUnavailable when ORT Java's native library cannot load
     */
    static void startInThisProcess() {
        try {
            BigStack.call("memplan-ort", () -> {
                environment();
                return null;
            });
        } catch (LinkageError | IllegalStateException e) {
            throw new OrtUnavailable("ONNX Runtime Java is on the class path but cannot start: "
                    + reason(e.getMessage()) + "; check that its jar matches this platform,"
                    + " or use the memplan runtime", e);
        }
        try {
            OrtCApi.requireLoaded();
        } catch (RuntimeException | LinkageError e) {
            // the session's arena is then not read: the figure starts from the first run
        }
    }

    /**
     * Runs kernel probe models ({@link KernelProbes}) in ONNX Runtime, in a child JVM: never in this
     * process, where other sessions may allocate through the counting allocator the probes read.
     *
     * @return one result line per probe, in order
     * @throws MemplanException when the child crashed or passed a limit
     */
    static List<String> probeKernels(List<ModelProto> probes, long modelBytes) {
        OrtLoadSettings settings = OrtLoadSettings.fromSystemProperties(modelBytes);
        if (settings.inProcess()) {
            throw new MemplanException("measuring it needs a child JVM, which -D" + OrtLoadSettings.MODE + "="
                    + OrtLoadSettings.IN_PROCESS + " turns off");
        }
        return IsolatedOrtLoad.probeKernels(probes, settings);
    }

    /**
     * {@link #save} in this process, on a {@link BigStack} thread: what {@link IsolatedOrtLoadMain}
     * runs, and what a server that cannot start a child JVM chooses.
     *
     * @throws OrtUnavailable when ORT Java's native library cannot load
     */
    static void saveInThisProcess(ModelHandOver.Model model, String level, Path saved) {
        try {
            BigStack.call("memplan-ort", () -> {
                saveHere(model, level, saved);
                return null;
            });
        } catch (LinkageError | IllegalStateException e) {
            // ORT Java is there but its native library is not (another platform, a broken jar)
            throw new OrtUnavailable("ONNX Runtime Java is on the class path but cannot start: "
                    + reason(e.getMessage()) + "; check that its jar matches this platform,"
                    + " or use the memplan runtime", e);
        }
    }

    private static void saveHere(ModelHandOver.Model model, String level, Path saved) {
        OrtEnvironment env = environment();
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.valueOf(level));
            options.setIntraOpNumThreads(1);
            // a user's environment may log more: memplan's sessions still print nothing
            options.setSessionLogLevel(OrtLoggingLevel.ORT_LOGGING_LEVEL_FATAL);
            options.setOptimizedModelFilePath(saved.toString());
            if (model.weightsApart()) {
                options.addConfigEntry(SavedWeights.FILE_OPTION, SavedWeights.fileName(saved));
                options.addConfigEntry(SavedWeights.MIN_SIZE_OPTION, Long.toString(SavedWeights.MIN_EXTERNAL_BYTES));
            }
            boolean startsEmpty;
            try (OrtSession session = model.file() != null ? env.createSession(model.file().toString(), options)
                    : env.createSession(model.bytes(), options)) {
                // saved while the session loads; nothing runs
                writeSessionStartPeak(session, saved);
                startsEmpty = startsEmpty(session);
            }
            if (!startsEmpty) {
                writeArenaStart(env, model, level, saved);
            }
        } catch (OrtException e) {
            throw new MemplanException("ONNX Runtime cannot load the model: " + reason(e.getMessage())
                    + "; check that ONNX Runtime runs this model, or use the memplan runtime", e);
        }
    }

    /**
     * What the session's creation took from its CPU arena above what it kept (constants ORT folded
     * and dropped after pre-packing them), into {@link #sessionStartFile}: the arena's
     * {@code MaxInUse} keeps it, so a request that takes less never shows in ORT's figure. Nothing
     * is written where the session's allocator is memplan's counting one (a server's environment)
     * or its statistics cannot be read.
     */
    private static void writeSessionStartPeak(OrtSession session, Path saved) {
        try {
            if (OrtCApi.usesCountingAllocator(session)) {
                return;
            }
            long[] stats = OrtCApi.arenaStats(session); // in use, max in use, ...
            if (stats[0] >= 0 && stats[1] >= stats[0]) {
                Files.writeString(sessionStartFile(saved), Long.toString(stats[1] - stats[0]));
            }
        } catch (RuntimeException | LinkageError | IOException e) {
            // the figure then starts from the first run, as before: no worse than not knowing
        }
    }

    /**
     * Whether the saving session's arena holds no region once created, or there is no arena
     * (memplan's counting allocator): a session that saves nothing allocates no more, so the
     * replay starts empty and needs no second session (ORT 1.29 and 1.30 keep the session's
     * allocations out of the regions). False where the statistics cannot be read, so that the
     * second session decides.
     */
    private static boolean startsEmpty(OrtSession session) {
        try {
            return OrtCApi.usesCountingAllocator(session)
                    || OrtCApi.arenaStart(session).equals(Optional.of(OrtArenaStart.EMPTY));
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /**
     * The state a serving session's creation leaves its CPU arena in ({@link OrtArenaStart}), into
     * {@link #arenaStartFile}, for the replay to start each request from. Read on a second session
     * that saves nothing: saving the graph allocates in the arena too. Nothing is written where the
     * session's allocator is memplan's counting one, the statistics cannot be read, or the free bytes
     * are more than one chunk: the replay then starts from an empty arena.
     */
    private static void writeArenaStart(OrtEnvironment env, ModelHandOver.Model model, String level, Path saved) {
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.valueOf(level));
            options.setIntraOpNumThreads(1);
            options.setSessionLogLevel(OrtLoggingLevel.ORT_LOGGING_LEVEL_FATAL);
            try (OrtSession session = model.file() != null ? env.createSession(model.file().toString(), options)
                    : env.createSession(model.bytes(), options)) {
                if (OrtCApi.usesCountingAllocator(session)) {
                    return;
                }
                Optional<OrtArenaStart> start = OrtCApi.arenaStart(session); // probes: the session serves nothing
                if (start.isPresent()) {
                    Files.writeString(arenaStartFile(saved), start.get().format());
                }
            }
        } catch (OrtException | RuntimeException | LinkageError | IOException e) {
            // the replay then starts from an empty arena, as ORT 1.29 and 1.30 do
        }
    }

    /** {@return where {@link #save} leaves the arena's start beside the graph it saved} */
    static Path arenaStartFile(Path saved) {
        return saved.resolveSibling(saved.getFileName() + ".arena");
    }

    /**
     * {@return the arena start {@link #writeArenaStart} measured for the graph saved at {@code
     * saved}, or {@link OrtArenaStart#EMPTY} when nothing was measured}; the file is removed.
     */
    static OrtArenaStart readArenaStart(Path saved) {
        Path file = arenaStartFile(saved);
        try {
            return Files.isRegularFile(file) ? OrtArenaStart.parse(Files.readString(file)) : OrtArenaStart.EMPTY;
        } catch (IOException | IllegalArgumentException e) {
            return OrtArenaStart.EMPTY;
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                file.toFile().deleteOnExit();
            }
        }
    }

    /** {@return where {@link #save} leaves the session start's peak beside the graph it saved} */
    static Path sessionStartFile(Path saved) {
        return saved.resolveSibling(saved.getFileName() + ".start");
    }

    /**
     * {@return the bytes {@link #writeSessionStartPeak} measured for the graph saved at
     * {@code saved}, or 0 when nothing was measured}; the file is removed.
     */
    static long readSessionStartPeak(Path saved) {
        Path file = sessionStartFile(saved);
        try {
            return Files.isRegularFile(file) ? Math.max(0, Long.parseLong(Files.readString(file).strip())) : 0;
        } catch (IOException | NumberFormatException e) {
            return 0;
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                file.toFile().deleteOnExit();
            }
        }
    }

    /**
     * ORT's environment, made once, here (a {@link BigStack} thread): at FATAL when memplan makes it.
     * When the application made it first, ORT Java warns through java.util.logging that the level
     * differs; that warning is memplan's doing, and silenced for the call.
     */
    static synchronized OrtEnvironment environment() {
        if (environment == null) {
            OrtTempFiles.sweep(OrtTempFiles.tmpdir()); // what killed processes left, before ORT Java copies its library
            Logger ortJava = Logger.getLogger(OrtEnvironment.class.getName());
            Level before = ortJava.getLevel();
            ortJava.setLevel(Level.SEVERE);
            try {
                environment = OrtEnvironment.getEnvironment(OrtLoggingLevel.ORT_LOGGING_LEVEL_FATAL, "memplan");
            } finally {
                ortJava.setLevel(before);
            }
            OrtTempFiles.removeOrtJavaCopy(OrtEnvironment.class.getClassLoader());
        }
        return environment;
    }

    /** ORT's message on one line, its status code after it rather than before. */
    static String reason(String message) {
        if (message == null || message.isBlank()) {
            return "no reason given";
        }
        Matcher m = STATUS.matcher(message.strip());
        String text = m.matches() ? m.group(2).strip() + " (" + m.group(1) + ")" : message.strip();
        return EXCEPTION_PREFIX.matcher(text.replaceAll("\\s*\\R\\s*", " ")).replaceAll("");
    }
}
