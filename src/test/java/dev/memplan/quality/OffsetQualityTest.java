package dev.memplan.quality;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.engine.PlanningEngine;
import dev.memplan.generate.HardPackingGenerator;
import dev.memplan.onnx.ReadmeModels;
import dev.memplan.testing.TestEngines;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The plan-quality targets of issue 8's "Done when", on the engine of {@code memplan.engine}. Each
 * test prints its table (the lead tunes with it) before asserting; every plan passes
 * {@link dev.memplan.PlanValidator} and the raw-interval checker first (see {@link QualityMeasure}).
 */
@Disabled("enabled when the offsets planner lands")
class OffsetQualityTest {
    /** Issue 8: geomean offsets peak / bound on the models and generators, and on random graphs. */
    static final double GEOMEAN_TARGET = 1.01;
    /** Issue 8: no model or generator case above this. */
    static final double WORST_TARGET = 1.05;
    /** Issue 8: geomean arena / bound on the hard packing instances at pack's default effort. */
    static final double HARD_GEOMEAN_TARGET = 1.20;

    @Test
    void sharedModelsAndGeneratorsPlanWithinOnePercentOfTheBound() {
        List<QualityRow> rows = new ArrayList<>();
        if (!ReadmeModels.present()) {
            System.out.println("(no shared models at " + ReadmeModels.where() + ": measuring the generators only)");
        }
        rows.addAll(QualityTable.measureAll(QualityCases.sharedModels()));
        rows.addAll(QualityTable.measureAll(QualityCases.generators()));
        System.out.println(QualityTable.casesTable(rows));
        System.out.println(QualityTable.summaryTable(rows));
        List<Double> ratios = rows.stream().map(QualityRow::offsetsRatio).toList();
        assertTrue(rows.size() >= QualityCases.generators().size(), "every generator case plans completely");
        double geomean = Ratios.geomean(ratios);
        double worst = Ratios.max(ratios);
        assertTrue(geomean <= GEOMEAN_TARGET, "offsets geomean peak / bound " + geomean + " > " + GEOMEAN_TARGET);
        assertTrue(worst <= WORST_TARGET, "worst offsets peak / bound " + worst + " > " + WORST_TARGET + ": "
                + rows.stream().filter(r -> r.offsetsRatio() > WORST_TARGET).toList());
    }

    @Test
    void randomGraphsPlanWithinOnePercentOfTheBound() {
        List<QualityRow> rows = QualityTable.measureAll(QualityCases.randomGraphs());
        System.out.println(QualityTable.summaryTable(rows));
        // about a third of the seeds are deferred by design (unknown sizes); the rest must be measured
        assertTrue(rows.size() >= QualityCases.RANDOM_SEEDS / 2, rows.size() + " complete random plans");
        double geomean = Ratios.geomean(rows.stream().map(QualityRow::offsetsRatio).toList());
        assertTrue(geomean <= GEOMEAN_TARGET, "random graphs: offsets geomean peak / bound " + geomean + " > "
                + GEOMEAN_TARGET);
    }

    @Test
    void hardInstancesPackWithinTwentyPercentOfTheBoundAtPacksDefaultEffort() {
        PlanningEngine engine = TestEngines.current();
        List<HardPackingRow> rows = new ArrayList<>();
        for (long seed = 1; seed <= HardPackingQuality.HARD_SEEDS; seed++) {
            rows.add(HardPackingQuality.measure(HardPackingGenerator.generate(seed), engine,
                    HardPackingQuality.PACK_DEFAULT_EFFORT));
        }
        System.out.println("engine " + engine.name());
        System.out.println(QualityTable.hardTable(rows, HardPackingQuality.PACK_DEFAULT_EFFORT));
        double geomean = Ratios.geomean(rows.stream().map(HardPackingRow::offsetsRatio).toList());
        assertTrue(geomean <= HARD_GEOMEAN_TARGET, "hard instances: offsets geomean arena / bound " + geomean + " > "
                + HARD_GEOMEAN_TARGET);
    }
}
