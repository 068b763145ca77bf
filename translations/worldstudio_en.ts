<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>EvaluationPanel</name>
    <message numerus="yes">
        <source>%n draft question(s) added for %1: edit, approve or remove them before labeling.</source>
        <translation>
            <numerusform>%n draft question added for %1: edit, approve or remove it before labeling.</numerusform>
            <numerusform>%n draft questions added for %1: edit, approve or remove them before labeling.</numerusform>
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
        <source>(%n of them interrupted and queued again)</source>
        <translation>
            <numerusform>(interrupted and queued again)</numerusform>
            <numerusform>(%n of them interrupted and queued again)</numerusform>
        </translation>
    </message>
</context>
</TS>
