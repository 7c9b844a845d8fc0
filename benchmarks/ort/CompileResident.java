// SPDX-License-Identifier: Apache-2.0
import dev.memplan.ort.OrtModel;
import dev.memplan.server.CompiledModel;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a compile leaves in the process once it returned and a GC ran: resident set (and its peak so
 * far), direct buffers and the heap, before and after compiling MODEL with memplan alone or for ONNX
 * Runtime.
 * Run by benchmarks/ort/compile-resident.sh, one fresh JVM per case.
 */
public class CompileResident {
    public static void main(String[] args) throws Exception {
        Path model = Path.of(args[1]);
        settle();
        String before = figures();
        long start = System.nanoTime();
        Object compiled = args[0].equals("ort") ? OrtModel.compile(model) : CompiledModel.compile(model);
        double seconds = (System.nanoTime() - start) / 1e9;
        settle();
        System.out.printf("%s %s: compiled in %.2f s; before %s; after %s (%s)%n", args[0], model.getFileName(),
                seconds, before, figures(), compiled.getClass().getSimpleName());
    }

    private static void settle() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
    }

    private static String figures() throws Exception {
        long rss = 0;
        long peak = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("\\D", "")) << 10;
            } else if (line.startsWith("VmHWM:")) {
                peak = Long.parseLong(line.replaceAll("\\D", "")) << 10;
            }
        }
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            direct += pool.getName().equals("direct") ? pool.getMemoryUsed() : 0;
        }
        Runtime rt = Runtime.getRuntime();
        return String.format("resident %d MiB (peak %d), direct %d MiB, heap %d of %d MiB", rss >> 20, peak >> 20,
                direct >> 20,
                (rt.totalMemory() - rt.freeMemory()) >> 20, rt.totalMemory() >> 20);
    }
}
