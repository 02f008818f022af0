<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US" sourcelanguage="en">
    <context>
        <name>Composer</name>
        <message numerus="yes">
            <source>tools: %n on</source>
            <translation>
                <numerusform>tools: %n on</numerusform>
                <numerusform>tools: %n on</numerusform>
            </translation>
        </message>
    </context>
    <context>
        <name>ToolCallsInline</name>
        <message numerus="yes">
            <source>%n tool calls</source>
            <translation>
                <numerusform>%n tool call</numerusform>
                <numerusform>%n tool calls</numerusform>
            </translation>
        </message>
    </context>
</TS>
