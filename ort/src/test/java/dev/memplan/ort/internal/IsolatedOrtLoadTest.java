// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.MemplanException;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What ONNX Runtime's load in a child JVM turns into when the child misbehaves as ORT did under
 * the fuzzer (a crash, memory without end) or hangs: memplan's one-line refusal, this JVM unharmed,
 * the child's folder gone. Stand-in children play ORT's part, so each case is certain and quick.
 */
@EngineIndependent
class IsolatedOrtLoadTest {
    private static final Path MODEL = Path.of("hostile.onnx");
    private static final OrtLoadSettings GENEROUS = new OrtLoadSettings(false, 1L << 30, 120);

    @TempDir
    Path dir;

    @Test
    void aCrashOfTheChildIsARefusalNamingTheSignal() {
        MemplanException e = assertThrows(MemplanException.class, () -> load(CrashingChild.class, GENEROUS));
        assertOneLine(e);
        assertTrue(e.getMessage().startsWith("ONNX Runtime crashed loading the model at level ALL_OPT (SIGSEGV,"),
                e.getMessage());
        assertTrue(e.getMessage().contains("memplan runtime"), e.getMessage());
    }

    @Test
    void aChildPastItsMemoryIsStoppedAndSaysWhichLimitToRaise() {
        OrtLoadSettings small = new OrtLoadSettings(false, 200L << 20, 120);
        MemplanException e = assertThrows(MemplanException.class, () -> load(BallooningChild.class, small));
        assertOneLine(e);
        assertTrue(e.getMessage().startsWith("ONNX Runtime held more than 200 MiB loading the model"), e.getMessage());
        assertTrue(e.getMessage().contains("-D" + OrtLoadSettings.MEMORY), e.getMessage());
    }

    @Test
    void aChildPastItsTimeIsStoppedAndSaysWhichLimitToRaise() {
        OrtLoadSettings quick = new OrtLoadSettings(false, 1L << 30, 1);
        MemplanException e = assertThrows(MemplanException.class, () -> load(HangingChild.class, quick));
        assertOneLine(e);
        assertTrue(e.getMessage().startsWith("ONNX Runtime took more than 1 s to load the model"), e.getMessage());
        assertTrue(e.getMessage().contains("-D" + OrtLoadSettings.TIMEOUT), e.getMessage());
    }

    @Test
    void aRefusalOfTheChildReachesTheCallerAsWritten() {
        MemplanException e = assertThrows(MemplanException.class, () -> load(RefusingChild.class, GENEROUS));
        assertEquals(RefusingChild.MESSAGE, e.getMessage());
        assertFalse(e instanceof OrtUnavailable);
    }

    @Test
    void aChildThatSavesReturnsAndLeavesOnlyTheSavedGraph() throws IOException {
        Path saved = dir.resolve("saved.onnx");
        new IsolatedOrtLoad(SavingChild.class.getName(), classPath()).save(MODEL, "ALL_OPT", saved, GENEROUS);
        assertEquals("saved by the child", Files.readString(saved));
    }

    @Test
    void theChildsMallocTakesHugePagesAndKeepsTheCallersOtherTunables() throws IOException {
        Path saved = dir.resolve("saved.onnx");
        new IsolatedOrtLoad(TunablesChild.class.getName(), classPath()).save(MODEL, "ALL_OPT", saved, GENEROUS);
        String inherited = System.getenv(IsolatedOrtLoad.GLIBC_TUNABLES);
        assertEquals(IsolatedOrtLoad.withHugePages(inherited), Files.readString(saved));
        assertTrue(Files.readString(saved).contains("glibc.malloc.hugetlb="), Files.readString(saved));
        assertEquals("glibc.malloc.hugetlb=1", IsolatedOrtLoad.withHugePages(null));
        assertEquals("glibc.malloc.check=3:glibc.malloc.hugetlb=1", IsolatedOrtLoad.withHugePages("glibc.malloc.check=3"));
        assertEquals("glibc.malloc.hugetlb=0", IsolatedOrtLoad.withHugePages("glibc.malloc.hugetlb=0"),
                "a caller who turned them off keeps them off");
    }

    @Test
    void pathsRelativeToTheCallerReachTheChildAsTheCallerMeantThem() throws IOException {
        Path here = Path.of("").toAbsolutePath();
        Path model = Files.writeString(dir.resolve("model.onnx"), "the caller's model");
        Path saved = dir.resolve("saved.onnx");
        new IsolatedOrtLoad(CopyingChild.class.getName(), classPath())
                .save(here.relativize(model), "ALL_OPT", here.relativize(saved), GENEROUS);
        assertEquals("the caller's model", Files.readString(saved));
    }

    @Test
    void aStartedSaveLoadsTheFileItIsToldOf() throws IOException {
        Path model = Files.writeString(dir.resolve("model.onnx"), "the model given later");
        Path saved = dir.resolve("saved.onnx");
        try (IsolatedOrtLoad.StartedSave started = new IsolatedOrtLoad(StdinCopyingChild.class.getName(), classPath())
                .startSave(model, "ALL_OPT", saved)) {
            started.save(out -> ModelHandOver.sendFile(out, model), "ALL_OPT", GENEROUS);
        }
        assertEquals("file: the model given later", Files.readString(saved));
    }

    @Test
    void aStartedSaveReceivesTheModelsBytesWhole() throws IOException {
        byte[] model = new byte[3 << 20]; // more than a pipe holds: the child reads while the parent writes
        new java.util.Random(7).nextBytes(model);
        Path saved = dir.resolve("saved.onnx");
        try (IsolatedOrtLoad.StartedSave started = new IsolatedOrtLoad(StdinCopyingChild.class.getName(), classPath())
                .startSave(Files.write(dir.resolve("model.onnx"), new byte[1]), "ALL_OPT", saved)) {
            started.save(out -> ModelHandOver.sendBytes(out, new ModelHandOver.ModelBytes(model.length,
                    o -> o.write(model))), "ALL_OPT", GENEROUS);
        }
        byte[] received = Files.readAllBytes(saved);
        assertEquals("bytes: ", new String(received, 0, 7, StandardCharsets.UTF_8));
        assertArrayEquals(model, java.util.Arrays.copyOfRange(received, 7, received.length));
    }

    @Test
    void aStartedSaveAppendsToTheFileItReadItselfWhenItIsTheFileChecked() throws IOException {
        Path model = Files.writeString(dir.resolve("model.onnx"), "the file read by the child, ");
        Path saved = dir.resolve("saved.onnx");
        ByteBuffer checked = ByteBuffer.wrap(Files.readAllBytes(model));
        byte[] appendix = "then what the parent appends".getBytes(StandardCharsets.UTF_8);
        try (IsolatedOrtLoad.StartedSave started = new IsolatedOrtLoad(StdinCopyingChild.class.getName(), classPath())
                .startSave(model, "ALL_OPT", saved)) {
            started.save(out -> ModelHandOver.sendAppended(out, ModelHandOver.crc(checked), new ModelHandOver.ModelBytes(appendix.length,
                    o -> o.write(appendix))), "ALL_OPT", GENEROUS);
        }
        assertEquals("bytes: the file read by the child, then what the parent appends", Files.readString(saved));
    }

    @Test
    void aFileThatIsNotTheOneCheckedIsRefused() throws IOException {
        Path model = Files.writeString(dir.resolve("model.onnx"), "rewritten after the check");
        ByteBuffer checked = ByteBuffer.wrap("the bytes memplan checked".getBytes(StandardCharsets.UTF_8));
        try (IsolatedOrtLoad.StartedSave started = new IsolatedOrtLoad(StdinCopyingChild.class.getName(), classPath())
                .startSave(model, "ALL_OPT", dir.resolve("saved.onnx"))) {
            MemplanException e = assertThrows(MemplanException.class, () -> started.save(out -> ModelHandOver.sendAppended(
                    out, ModelHandOver.crc(checked), new ModelHandOver.ModelBytes(0, o -> { })), "ALL_OPT", GENEROUS));
            assertEquals("the model file changed while memplan read it; compile the model again once it is completely"
                    + " written", e.getMessage());
        }
        assertFalse(Files.exists(dir.resolve("saved.onnx")));
    }

    @Test
    void aStartedSaveNeverGivenItsModelLeavesNoChildAndNoFolder() throws IOException {
        List<Path> before = childFolders();
        long childrenBefore = ProcessHandle.current().children().filter(ProcessHandle::isAlive).count();
        IsolatedOrtLoad.StartedSave started = new IsolatedOrtLoad(HangingChild.class.getName(), classPath())
                .startSave(Files.writeString(dir.resolve("model.onnx"), "refused"), "ALL_OPT", dir.resolve("saved.onnx"));
        started.close(); // the model was refused before ORT saw it
        List<Path> after = childFolders();
        after.removeAll(before);
        assertEquals(List.of(), after, "the child's folder is deleted");
        assertEquals(childrenBefore, ProcessHandle.current().children().filter(ProcessHandle::isAlive).count(),
                "the waiting child is stopped");
    }

    @Test
    void withoutACrashReportTheExitStatusNamesTheSignal() {
        assertEquals("SIGFPE", IsolatedOrtLoad.crashCause(dir, 128 + 8));
        assertEquals("SIGKILL", IsolatedOrtLoad.crashCause(dir, 128 + 9));
        assertEquals("exit status 1", IsolatedOrtLoad.crashCause(dir, 1));
    }

    @Test
    void theCrashReportNamesTheSignalBeforeTheExitStatus() throws IOException {
        Files.writeString(dir.resolve(IsolatedOrtLoad.CRASH_FILE), "#\n#  SIGFPE (0x8) at pc=0x00007f, pid=1, tid=2\n");
        assertEquals("SIGFPE", IsolatedOrtLoad.crashCause(dir, 134));
    }

    @Test
    void residentMemoryIsReadFromTheStatusFileAndZeroWithoutOne() throws IOException {
        Path status = dir.resolve("status");
        Files.writeString(status, "Name:\tjava\nVmPeak:\t  999 kB\nVmRSS:\t  2048 kB\nThreads:\t4\n");
        assertEquals(2048L * 1024, IsolatedOrtLoad.residentBytes(status));
        assertEquals(0, IsolatedOrtLoad.residentBytes(dir.resolve("absent")));
    }

    private void load(Class<?> child, OrtLoadSettings settings) {
        List<Path> before = childFolders();
        try {
            new IsolatedOrtLoad(child.getName(), classPath()).save(MODEL, "ALL_OPT", dir.resolve("saved.onnx"), settings);
        } finally {
            List<Path> after = childFolders();
            after.removeAll(before);
            assertEquals(List.of(), after, "the child's folder is deleted whatever ended it");
        }
    }

    private static List<Path> classPath() {
        List<Path> classPath = new ArrayList<>(IsolatedOrtLoad.memplanClassPath());
        classPath.add(0, IsolatedOrtLoad.location(IsolatedOrtLoadTest.class));
        return classPath;
    }

    /** The child folders in this process's ort folder (made by the first load). */
    private static List<Path> childFolders() {
        Path any = OrtTempFiles.newFolder("probe-");
        OrtTempFiles.deleteTree(any);
        try (Stream<Path> list = Files.list(any.getParent())) {
            return list.filter(p -> p.getFileName().toString().startsWith("child-")).collect(java.util.stream.Collectors.toList());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void assertOneLine(MemplanException e) {
        assertFalse(e.getMessage().contains("\n") || e.getMessage().contains("\r"), e.getMessage());
    }

    private static sun.misc.Unsafe unsafe() throws ReflectiveOperationException {
        Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        return (sun.misc.Unsafe) f.get(null);
    }

    /** Dies as native code does on a bad pointer: the JVM's crash handler, a report, SIGABRT. */
    static final class CrashingChild {
        public static void main(String[] args) throws ReflectiveOperationException {
            unsafe().putAddress(0, 42);
        }
    }

    /** Takes native memory without end, touching every page, as ORT folding a huge constant does. */
    static final class BallooningChild {
        public static void main(String[] args) throws ReflectiveOperationException {
            sun.misc.Unsafe unsafe = unsafe();
            for (int i = 0; i < 1024; i++) {
                unsafe.setMemory(unsafe.allocateMemory(16 << 20), 16 << 20, (byte) 1);
            }
        }
    }

    static final class HangingChild {
        public static void main(String[] args) throws InterruptedException {
            Thread.sleep(600_000);
        }
    }

    static final class RefusingChild {
        static final String MESSAGE = "ONNX Runtime cannot load the model: a stand-in's reason; use the memplan runtime";

        public static void main(String[] args) throws IOException {
            Files.writeString(Path.of(args[0]), MESSAGE, StandardCharsets.UTF_8);
            System.exit(IsolatedOrtLoad.EXIT_REFUSED);
        }
    }

    /** Saves the model it was given as the graph: it reads and writes where its arguments say. */
    static final class CopyingChild {
        public static void main(String[] args) throws IOException {
            Files.copy(Path.of(args[1]), Path.of(args[3]));
        }
    }

    /** Waits for the model's path on its input, as IsolatedOrtLoadMain given "-", then copies it. */
    static final class StdinCopyingChild {
        public static void main(String[] args) throws IOException {
            if (!args[1].equals(IsolatedOrtLoadMain.MODEL_ON_STDIN)) {
                System.exit(5); // the parent reports it as a crash
            }
            ModelHandOver.Model model;
            try {
                model = ModelHandOver.receive(ModelHandOver.preRead(Path.of(args[4])));
            } catch (dev.memplan.MemplanException e) {
                Files.writeString(Path.of(args[0]), e.getMessage());
                System.exit(IsolatedOrtLoad.EXIT_REFUSED);
                return;
            }
            try (var out = Files.newOutputStream(Path.of(args[3]))) {
                if (model.file() != null) {
                    out.write("file: ".getBytes(StandardCharsets.UTF_8));
                    Files.copy(model.file(), out);
                } else {
                    out.write("bytes: ".getBytes(StandardCharsets.UTF_8));
                    byte[] bytes = new byte[model.bytes().remaining()];
                    model.bytes().get(bytes);
                    out.write(bytes);
                }
            }
        }
    }

    /** Saves its glibc tunables as the graph. */
    static final class TunablesChild {
        public static void main(String[] args) throws IOException {
            Files.writeString(Path.of(args[3]), String.valueOf(System.getenv(IsolatedOrtLoad.GLIBC_TUNABLES)));
        }
    }

    static final class SavingChild {
        public static void main(String[] args) throws IOException {
            Files.writeString(Path.of(args[3]), "saved by the child");
        }
    }
}
