<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>ClusterDialog</name>
    <message numerus="yes">
        <source>Submitting %n job(s)…</source>
        <translation>
            <numerusform>Submitting %n job…</numerusform>
            <numerusform>Submitting %n jobs…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 — the %n job(s) are back in the local queue</source>
        <translation>
            <numerusform>%1 — the job is back in the local queue</numerusform>
            <numerusform>%1 — the %n jobs are back in the local queue</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n sample(s) done, %2 failed</source>
        <translation>
            <numerusform>%1 of %n sample done, %2 failed</numerusform>
            <numerusform>%1 of %n samples done, %2 failed</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Send %n queued job(s)</source>
        <translation>
            <numerusform>Send %n queued job</numerusform>
            <numerusform>Send %n queued jobs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EvaluationPanel</name>
    <message numerus="yes">
        <source>%n draft question(s) added for %1: edit, approve or remove them before labeling.</source>
        <translation>
            <numerusform>%n draft question added for %1: edit, approve or remove it before labeling.</numerusform>
            <numerusform>%n draft questions added for %1: edit, approve or remove them before labeling.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n gold answer(s) on %2 simulated video(s)</source>
        <translation>
            <numerusform>%1: %n gold answer on %2 simulated video(s)</numerusform>
            <numerusform>%1: %n gold answers on %2 simulated video(s)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %2 %3 prompt(s) and %n question(s)</source>
        <translation>
            <numerusform>%1: %2 %3 prompt(s) and %n question</numerusform>
            <numerusform>%1: %2 %3 prompt(s) and %n questions</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n prompt(s) have no video yet, so their questions are not asked: choose one and Generate this prompt.</source>
        <translation>
            <numerusform>%n prompt has no video yet, so its questions are not asked: choose it and Generate this prompt.</numerusform>
            <numerusform>%n prompts have no video yet, so their questions are not asked: choose one and Generate this prompt.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>GenerateView</name>
    <message numerus="yes">
        <source>Upsampled caption has %n problem(s); see below the editor</source>
        <translation>
            <numerusform>Upsampled caption has %n problem; see below the editor</numerusform>
            <numerusform>Upsampled caption has %n problems; see below the editor</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message numerus="yes">
        <source>Restored %n queued job(s); they start when a model is loaded</source>
        <translation>
            <numerusform>Restored %n queued job; it starts when a model is loaded</numerusform>
            <numerusform>Restored %n queued jobs; they start when a model is loaded</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n job(s) queued from %1</source>
        <translation>
            <numerusform>%n job queued from %1</numerusform>
            <numerusform>%n jobs queued from %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>; %n line(s) refused, the first: %1</source>
        <translation>
            <numerusform>; %n line refused: %1</numerusform>
            <numerusform>; %n lines refused, the first: %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n queued job(s) written to %1; run them with worldstudio-cli batch</source>
        <translation>
            <numerusform>%n queued job written to %1; run it with worldstudio-cli batch</numerusform>
            <numerusform>%n queued jobs written to %1; run them with worldstudio-cli batch</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Restored %n queued job(s)</source>
        <translation>
            <numerusform>Restored %n queued job</numerusform>
            <numerusform>Restored %n queued jobs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>(%n of them interrupted and queued again); the queue is paused: Resume queue (Ctrl+P) starts them</source>
        <translation>
            <numerusform>(one of them interrupted and queued again); the queue is paused: Resume queue (Ctrl+P) starts it</numerusform>
            <numerusform>(%n of them interrupted and queued again); the queue is paused: Resume queue (Ctrl+P) starts them</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>PlayPanel</name>
    <message numerus="yes">
        <source>%n chunk(s) played; the last took %1 s.</source>
        <translation>
            <numerusform>%n chunk played; it took %1 s.</numerusform>
            <numerusform>%n chunks played; the last took %1 s.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RoboticsView</name>
    <message numerus="yes">
        <source>Simulating %n Pico World episode(s)…</source>
        <translation>
            <numerusform>Simulating %n Pico World episode…</numerusform>
            <numerusform>Simulating %n Pico World episodes…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n episode(s) · %2 fps%3</source>
        <translation>
            <numerusform>%1 · %n episode · %2 fps%3</numerusform>
            <numerusform>%1 · %n episodes · %2 fps%3</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Bundle %1: %n rollout(s).</source>
        <translation>
            <numerusform>Bundle %1: %n rollout.</numerusform>
            <numerusform>Bundle %1: %n rollouts.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %n bookmark(s) without a frame number are left out.</source>
        <translation>
            <numerusform>%1: %n bookmark without a frame number is left out.</numerusform>
            <numerusform>%1: %n bookmarks without a frame number are left out.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SettingsPanel</name>
    <message numerus="yes">
        <source>This distilled checkpoint samples its own %n step(s) in one conditional pass: steps, guidance and shift are its own, and no negative prompt is used.</source>
        <translation>
            <numerusform>This distilled checkpoint samples its own %n step in one conditional pass: steps, guidance and shift are its own, and no negative prompt is used.</numerusform>
            <numerusform>This distilled checkpoint samples its own %n steps in one conditional pass: steps, guidance and shift are its own, and no negative prompt is used.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TrajectoryEditor</name>
    <message numerus="yes">
        <source>Editing %n step(s) from frame %1.</source>
        <translation>
            <numerusform>Editing %n step from frame %1.</numerusform>
            <numerusform>Editing %n steps from frame %1.</numerusform>
        </translation>
    </message>
</context>
</TS>
