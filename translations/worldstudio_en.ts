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
</TS>
