<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AdapterList</name>
    <message>
        <source>Adapter folder</source>
        <translation>适配器文件夹</translation>
    </message>
    <message>
        <source>Strength</source>
        <translation>强度</translation>
    </message>
    <message>
        <source>Add adapter…</source>
        <translation>添加适配器…</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>LoRA adapter folder (adapter_config.json, adapter_model.safetensors)</source>
        <translation>LoRA 适配器文件夹（adapter_config.json、adapter_model.safetensors）</translation>
    </message>
</context>
<context>
    <name>CaptionEditor</name>
    <message>
        <source>Form</source>
        <translation>表单</translation>
    </message>
    <message>
        <source>Raw JSON</source>
        <translation>原始 JSON</translation>
    </message>
    <message>
        <source>The caption must be a JSON object ({ ... }).</source>
        <translation>描述必须是 JSON 对象（{ ... }）。</translation>
    </message>
    <message>
        <source>JSON error at %1: %2</source>
        <translation>JSON 错误（%1）：%2</translation>
    </message>
    <message>
        <source>&lt;b&gt;Other fields&lt;/b&gt;</source>
        <translation>&lt;b&gt;其他字段&lt;/b&gt;</translation>
    </message>
    <message>
        <source>  (edit in Raw JSON)</source>
        <translation>  （在原始 JSON 中编辑）</translation>
    </message>
    <message>
        <source>⚠ should be %1; edit it in Raw JSON</source>
        <translation>⚠ 应为 %1；请在原始 JSON 中编辑</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>Move up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Move down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Remove %1 %2</source>
        <translation>移除 %1 %2</translation>
    </message>
    <message>
        <source>Add %1</source>
        <translation>添加 %1</translation>
    </message>
    <message>
        <source>Receiving the upsampled caption...</source>
        <translation>正在接收扩写后的描述...</translation>
    </message>
    <message>
        <source>The reasoner is writing the caption; the form follows when it is done.</source>
        <translation>推理器正在撰写描述；完成后表单随之更新。</translation>
    </message>
    <message>
        <source>The raw JSON does not parse (%1). The form shows the last valid caption; fix the text in Raw JSON. Nothing has been changed.</source>
        <translation>原始 JSON 无法解析（%1）。表单显示的是上一个有效的描述；请在原始 JSON 中修正文本。未做任何更改。</translation>
    </message>
    <message>
        <source>Valid caption</source>
        <translation>描述有效</translation>
    </message>
</context>
<context>
    <name>CaptionSchema</name>
    <message>
        <source>Human or human-like subject</source>
        <translation>人物或类人主体</translation>
    </message>
    <message>
        <source>Counts (groups of similar things)</source>
        <translation>数量（同类事物的组）</translation>
    </message>
    <message>
        <source>Subjects</source>
        <translation>主体</translation>
    </message>
    <message>
        <source>Subject</source>
        <translation>主体</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Appearance details</source>
        <translation>外观细节</translation>
    </message>
    <message>
        <source>Relationship</source>
        <translation>关系</translation>
    </message>
    <message>
        <source>Location</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Relative size</source>
        <translation>相对大小</translation>
    </message>
    <message>
        <source>Orientation</source>
        <translation>朝向</translation>
    </message>
    <message>
        <source>Pose</source>
        <translation>姿态</translation>
    </message>
    <message>
        <source>Clothing</source>
        <translation>服装</translation>
    </message>
    <message>
        <source>Expression</source>
        <translation>表情</translation>
    </message>
    <message>
        <source>Gender</source>
        <translation>性别</translation>
    </message>
    <message>
        <source>Age</source>
        <translation>年龄</translation>
    </message>
    <message>
        <source>Skin tone and texture</source>
        <translation>肤色与质感</translation>
    </message>
    <message>
        <source>Number of subjects</source>
        <translation>主体数量</translation>
    </message>
    <message>
        <source>Number of arms</source>
        <translation>手臂数量</translation>
    </message>
    <message>
        <source>Number of hands</source>
        <translation>手的数量</translation>
    </message>
    <message>
        <source>Number of fingers</source>
        <translation>手指数量</translation>
    </message>
    <message>
        <source>Number of legs</source>
        <translation>腿的数量</translation>
    </message>
    <message>
        <source>Background setting</source>
        <translation>背景环境</translation>
    </message>
    <message>
        <source>Lighting</source>
        <translation>光照</translation>
    </message>
    <message>
        <source>Conditions</source>
        <translation>条件</translation>
    </message>
    <message>
        <source>Direction</source>
        <translation>方向</translation>
    </message>
    <message>
        <source>Shadows</source>
        <translation>阴影</translation>
    </message>
    <message>
        <source>Illumination effect</source>
        <translation>照明效果</translation>
    </message>
    <message>
        <source>Aesthetics</source>
        <translation>美学</translation>
    </message>
    <message>
        <source>Composition</source>
        <translation>构图</translation>
    </message>
    <message>
        <source>Color scheme</source>
        <translation>配色</translation>
    </message>
    <message>
        <source>Mood atmosphere</source>
        <translation>情绪氛围</translation>
    </message>
    <message>
        <source>Patterns</source>
        <translation>图案</translation>
    </message>
    <message>
        <source>Cinematography</source>
        <translation>摄影</translation>
    </message>
    <message>
        <source>Framing</source>
        <translation>取景</translation>
    </message>
    <message>
        <source>Camera angle</source>
        <translation>机位角度</translation>
    </message>
    <message>
        <source>Depth of field</source>
        <translation>景深</translation>
    </message>
    <message>
        <source>Focus</source>
        <translation>对焦</translation>
    </message>
    <message>
        <source>Lens focal length</source>
        <translation>镜头焦距</translation>
    </message>
    <message>
        <source>Style medium</source>
        <translation>风格媒介</translation>
    </message>
    <message>
        <source>Artistic style</source>
        <translation>艺术风格</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>语境</translation>
    </message>
    <message>
        <source>Text and signage</source>
        <translation>文字与标识</translation>
    </message>
    <message>
        <source>Text element</source>
        <translation>文字元素</translation>
    </message>
    <message>
        <source>Element</source>
        <translation>元素</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文字</translation>
    </message>
    <message>
        <source>Category</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>Spatial</source>
        <translation>空间</translation>
    </message>
    <message>
        <source>Quadrant scan</source>
        <translation>象限扫描</translation>
    </message>
    <message>
        <source>Top left</source>
        <translation>左上</translation>
    </message>
    <message>
        <source>Top right</source>
        <translation>右上</translation>
    </message>
    <message>
        <source>Bottom left</source>
        <translation>左下</translation>
    </message>
    <message>
        <source>Bottom right</source>
        <translation>右下</translation>
    </message>
    <message>
        <source>Absolute center</source>
        <translation>正中心</translation>
    </message>
    <message>
        <source>Comprehensive caption</source>
        <translation>综合描述</translation>
    </message>
    <message>
        <source>Resolution</source>
        <translation>分辨率</translation>
    </message>
    <message>
        <source>W</source>
        <translation>宽</translation>
    </message>
    <message>
        <source>H</source>
        <translation>高</translation>
    </message>
    <message>
        <source>Aspect ratio</source>
        <translation>宽高比</translation>
    </message>
    <message>
        <source>Scene imagination</source>
        <translation>场景构想</translation>
    </message>
    <message>
        <source>Temporal caption</source>
        <translation>时序描述</translation>
    </message>
    <message>
        <source>Audio description</source>
        <translation>音频描述</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>动作</translation>
    </message>
    <message>
        <source>State changes</source>
        <translation>状态变化</translation>
    </message>
    <message>
        <source>Camera motion</source>
        <translation>镜头运动</translation>
    </message>
    <message>
        <source>Actions</source>
        <translation>动作</translation>
    </message>
    <message>
        <source>Time (M:SS or M:SS-M:SS)</source>
        <translation>时间（M:SS 或 M:SS-M:SS）</translation>
    </message>
    <message>
        <source>Spatial temporal</source>
        <translation>时空</translation>
    </message>
    <message>
        <source>Segments</source>
        <translation>片段</translation>
    </message>
    <message>
        <source>Segment</source>
        <translation>片段</translation>
    </message>
    <message>
        <source>Segment index</source>
        <translation>片段序号</translation>
    </message>
    <message>
        <source>Time range (M:SS-M:SS)</source>
        <translation>时间范围（M:SS-M:SS）</translation>
    </message>
    <message>
        <source>Key changes</source>
        <translation>关键变化</translation>
    </message>
    <message>
        <source>Camera</source>
        <translation>镜头</translation>
    </message>
    <message>
        <source>Transitions</source>
        <translation>转场</translation>
    </message>
    <message>
        <source>Transition</source>
        <translation>转场</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Fps</source>
        <translation>帧率</translation>
    </message>
    <message>
        <source>Item</source>
        <translation>条目</translation>
    </message>
</context>
<context>
    <name>CardStrip</name>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
</context>
<context>
    <name>ChannelChart</name>
    <message>
        <source>%1 · frame %2 · %3</source>
        <translation>%1 · 第 %2 帧 · %3</translation>
    </message>
</context>
<context>
    <name>ClockTimeline</name>
    <message>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
</context>
<context>
    <name>ClusterDialog</name>
    <message>
        <source>Cluster (Slurm)</source>
        <translation>集群（Slurm）</translation>
    </message>
    <message>
        <source>Send the queue</source>
        <translation>发送队列</translation>
    </message>
    <message>
        <source>empty: this machine submits (else user@login-node, over ssh)</source>
        <translation>留空：由本机提交（否则填写 user@登录节点，经 ssh）</translation>
    </message>
    <message>
        <source>sbatch, squeue and scancel run there over ssh without a password prompt (keys or an agent); the batch folder and the model folder must be the same paths there</source>
        <translation>sbatch、squeue 和 scancel 经 ssh 在那里运行，不会提示输入密码（使用密钥或代理）；批次文件夹和模型文件夹在那里必须是相同的路径</translation>
    </message>
    <message>
        <source>The worldstudio-cli each task runs (the same version as this studio)</source>
        <translation>每个任务运行的 worldstudio-cli（与本工作室版本相同）</translation>
    </message>
    <message>
        <source>the model folder the tasks load</source>
        <translation>任务加载的模型文件夹</translation>
    </message>
    <message>
        <source>Tasks of the job array; the samples are dealt round robin</source>
        <translation>作业数组的任务数；样本轮流分配</translation>
    </message>
    <message>
        <source>At most this many tasks at once (the array&apos;s %K)</source>
        <translation>同时最多运行这么多任务（数组的 %K）</translation>
    </message>
    <message>
        <source>more sbatch options, e.g. --partition=gpu --gres=gpu:1 --time=02:00:00</source>
        <translation>更多 sbatch 选项，例如 --partition=gpu --gres=gpu:1 --time=02:00:00</translation>
    </message>
    <message>
        <source>The batch&apos;s folder: queue.jsonl, the shards, then one folder per sample</source>
        <translation>批次文件夹：queue.jsonl、各分片，以及每个样本一个文件夹</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Batch folder</source>
        <translation>批次文件夹</translation>
    </message>
    <message>
        <source>at most</source>
        <translation>最多</translation>
    </message>
    <message>
        <source>running at once</source>
        <translation>个同时运行</translation>
    </message>
    <message>
        <source>Login node</source>
        <translation>登录节点</translation>
    </message>
    <message>
        <source>Task program</source>
        <translation>任务程序</translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>Shards</source>
        <translation>分片</translation>
    </message>
    <message>
        <source>sbatch options</source>
        <translation>sbatch 选项</translation>
    </message>
    <message>
        <source>Follow a folder…</source>
        <translation>跟踪文件夹…</translation>
    </message>
    <message>
        <source>Follow a batch submitted earlier (by the studio or by worldstudio-cli batch --slurm)</source>
        <translation>跟踪之前提交的批次（由工作室或 worldstudio-cli batch --slurm 提交）</translation>
    </message>
    <message>
        <source>A batch folder</source>
        <translation>批次文件夹</translation>
    </message>
    <message>
        <source>No batch yet.</source>
        <translation>尚无批次。</translation>
    </message>
    <message>
        <source>Shard</source>
        <translation>分片</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Samples done</source>
        <translation>已完成样本</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Cancel shard</source>
        <translation>取消分片</translation>
    </message>
    <message>
        <source>scancel the selected shard&apos;s task</source>
        <translation>用 scancel 取消所选分片的任务</translation>
    </message>
    <message>
        <source>Cancel all</source>
        <translation>全部取消</translation>
    </message>
    <message>
        <source>scancel the whole array</source>
        <translation>用 scancel 取消整个数组</translation>
    </message>
    <message>
        <source>Resume unfinished</source>
        <translation>续跑未完成部分</translation>
    </message>
    <message>
        <source>Submit again the shards whose samples failed or did not run; done samples are kept</source>
        <translation>重新提交有样本失败或未运行的分片；已完成的样本保留</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>The batch&apos;s folder: one folder per sample</source>
        <translation>批次文件夹：每个样本一个文件夹</translation>
    </message>
    <message>
        <source>Open log</source>
        <translation>打开日志</translation>
    </message>
    <message>
        <source>The selected shard&apos;s task log (.slurm/task_I.log)</source>
        <translation>所选分片的任务日志（.slurm/task_I.log）</translation>
    </message>
    <message>
        <source>No log yet: %1 (a task writes it when it starts)</source>
        <translation>尚无日志：%1（任务开始时写入）</translation>
    </message>
    <message>
        <source>The login node is a host name (user@host), not &apos;%1&apos;</source>
        <translation>登录节点应为主机名（user@host），而不是“%1”</translation>
    </message>
    <message>
        <source>Choose the worldstudio-cli the tasks run (Task program)</source>
        <translation>请选择任务运行的 worldstudio-cli（任务程序）</translation>
    </message>
    <message>
        <source>The task program %1 is not an executable here</source>
        <translation>任务程序 %1 在本机不是可执行文件</translation>
    </message>
    <message>
        <source>Choose the model folder the tasks load (load a model, or type its folder)</source>
        <translation>请选择任务加载的模型文件夹（加载一个模型，或输入其文件夹）</translation>
    </message>
    <message>
        <source>The model folder %1 does not exist</source>
        <translation>模型文件夹 %1 不存在</translation>
    </message>
    <message>
        <source>The sbatch options have an unclosed quote</source>
        <translation>sbatch 选项中有未闭合的引号</translation>
    </message>
    <message>
        <source>%1 already holds a batch: follow it and resume it, or choose another folder</source>
        <translation>%1 已有一个批次：跟踪并续跑它，或选择其他文件夹</translation>
    </message>
    <message>
        <source>Nothing is queued: add jobs with Generate (Ctrl+Enter), then send them</source>
        <translation>队列为空：先用“生成”（Ctrl+Enter）添加任务，再发送</translation>
    </message>
    <message numerus="yes">
        <source>Submitting %n job(s)…</source>
        <translation>
            <numerusform>正在提交 %n 个任务…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 — the %n job(s) are back in the local queue</source>
        <translation>
            <numerusform>%1 —— 这 %n 个任务已回到本地队列</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing left to run in %1</source>
        <translation>%1 中已没有要运行的内容</translation>
    </message>
    <message>
        <source>Submitted job %1</source>
        <translation>已提交作业 %1</translation>
    </message>
    <message>
        <source>Following %1</source>
        <translation>正在跟踪 %1</translation>
    </message>
    <message>
        <source>done before</source>
        <translation>之前已完成</translation>
    </message>
    <message>
        <source>submitted</source>
        <translation>已提交</translation>
    </message>
    <message>
        <source>Following %1 (job %2)</source>
        <translation>正在跟踪 %1（作业 %2）</translation>
    </message>
    <message numerus="yes">
        <source>%1 of %n sample(s) done, %2 failed</source>
        <translation>
            <numerusform>%n 个样本中已完成 %1 个，失败 %2 个</numerusform>
        </translation>
    </message>
    <message>
        <source>Finished: %1</source>
        <translation>已结束：%1</translation>
    </message>
    <message>
        <source>%1 running, %2 waiting, %3 finished — %4</source>
        <translation>%1 个运行中，%2 个等待中，%3 个已结束 —— %4</translation>
    </message>
    <message>
        <source>Shard %1 cancelled</source>
        <translation>分片 %1 已取消</translation>
    </message>
    <message>
        <source>The array is cancelled</source>
        <translation>数组已取消</translation>
    </message>
    <message>
        <source>Submitting the unfinished shards…</source>
        <translation>正在提交未完成的分片…</translation>
    </message>
    <message numerus="yes">
        <source>Send %n queued job(s)</source>
        <translation>
            <numerusform>发送 %n 个排队任务</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EngineWorker</name>
    <message>
        <source>Loading was cancelled.</source>
        <translation>加载已取消。</translation>
    </message>
    <message>
        <source>Preparing the built-in model...</source>
        <translation>正在准备内置模型...</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>未加载模型。</translation>
    </message>
    <message>
        <source>Question drafting was cancelled.</source>
        <translation>问题起草已取消。</translation>
    </message>
    <message>
        <source>Upsampling was cancelled.</source>
        <translation>扩写已取消。</translation>
    </message>
    <message>
        <source>the adapter list</source>
        <translation>适配器列表</translation>
    </message>
    <message>
        <source>the memory settings</source>
        <translation>内存设置</translation>
    </message>
</context>
<context>
    <name>EvaluationPanel</name>
    <message>
        <source>No evaluation project open</source>
        <translation>未打开评测项目</translation>
    </message>
    <message>
        <source>annotator</source>
        <translation>标注员</translation>
    </message>
    <message>
        <source>Annotator:</source>
        <translation>标注员：</translation>
    </message>
    <message>
        <source>&amp;Label</source>
        <translation>标注(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Adjudicate</source>
        <translation>裁定(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Questions</source>
        <translation>问题(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Scores</source>
        <translation>得分(&amp;S)</translation>
    </message>
    <message>
        <source>Open an evaluation project (File ▸ Open evaluation project…)</source>
        <translation>请打开评测项目（文件 ▸ 打开评测项目…）</translation>
    </message>
    <message>
        <source>&amp;Yes (Y)</source>
        <translation>是(&amp;Y)</translation>
    </message>
    <message>
        <source>&amp;No (N)</source>
        <translation>否(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Unclear (U)</source>
        <translation>不确定(&amp;U)</translation>
    </message>
    <message>
        <source>Previous (K)</source>
        <translation>上一个 (K)</translation>
    </message>
    <message>
        <source>Next (J)</source>
        <translation>下一个 (J)</translation>
    </message>
    <message>
        <source>Space plays or pauses, Left / Right step a frame.</source>
        <translation>空格键播放或暂停，左 / 右方向键逐帧步进。</translation>
    </message>
    <message>
        <source>note for the final answer (optional)</source>
        <translation>最终答案的备注（可选）</translation>
    </message>
    <message>
        <source>Does …? (worded so that Yes is the desired outcome)</source>
        <translation>是否…？（措辞应使“是”代表期望的结果）</translation>
    </message>
    <message>
        <source>Add question</source>
        <translation>添加问题</translation>
    </message>
    <message>
        <source>Approve</source>
        <translation>批准</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Save edit</source>
        <translation>保存修改</translation>
    </message>
    <message>
        <source>Draft questions with the reasoner</source>
        <translation>用推理器起草问题</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>Question</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>Questions per prompt. Drafts (marked) are not asked until approved.</source>
        <translation>每个提示词对应的问题。草稿（已标记）在批准前不会用于提问。</translation>
    </message>
    <message>
        <source>Evaluation project: %1</source>
        <translation>评测项目：%1</translation>
    </message>
    <message>
        <source>Open an evaluation project first</source>
        <translation>请先打开评测项目</translation>
    </message>
    <message>
        <source>Open an evaluation project first (File ▸ Open evaluation project…)</source>
        <translation>请先打开评测项目（文件 ▸ 打开评测项目…）</translation>
    </message>
    <message>
        <source>DRAFT </source>
        <translation>草稿 </translation>
    </message>
    <message>
        <source>Video not found:
%1</source>
        <translation>找不到视频：
%1</translation>
    </message>
    <message>
        <source>Video not found: %1</source>
        <translation>找不到视频：%1</translation>
    </message>
    <message>
        <source>No open disagreements.</source>
        <translation>没有待裁定的分歧。</translation>
    </message>
    <message>
        <source>Type your annotator name above.</source>
        <translation>请在上方输入你的标注员名称。</translation>
    </message>
    <message>
        <source>Your answer: %1</source>
        <translation>你的答案：%1</translation>
    </message>
    <message>
        <source>Not answered yet</source>
        <translation>尚未回答</translation>
    </message>
    <message>
        <source>Prompt %1 has no text to draft questions from.</source>
        <translation>提示词 %1 没有可用于起草问题的文本。</translation>
    </message>
    <message>
        <source>Drafting questions for %1 (Domain Strategist → Scene Parser → Auditor)…</source>
        <translation>正在为 %1 起草问题（领域策略师 → 场景解析器 → 审核员）…</translation>
    </message>
    <message numerus="yes">
        <source>%n draft question(s) added for %1: edit, approve or remove them before labeling.</source>
        <translation>
            <numerusform>已为 %1 添加 %n 个草稿问题：请在标注前编辑、批准或移除。</numerusform>
        </translation>
    </message>
    <message>
        <source>The item&apos;s video plays here</source>
        <translation>条目的视频在此播放</translation>
    </message>
    <message>
        <source>Items the annotators disagree on. Y / N / U give the final answer; J / K move. The final answer comes from a reviewer who did not answer the item.</source>
        <translation>标注员意见不一致的条目。Y / N / U 给出最终答案；J / K 移动。最终答案须由未回答该条目的审核员给出。</translation>
    </message>
    <message>
        <source>Item %1 — %2 — %3</source>
        <translation>条目 %1 — %2 — %3</translation>
    </message>
    <message>
        <source>Item %1</source>
        <translation>条目 %1</translation>
    </message>
    <message>
        <source>Approves the selected questions (Ctrl+A selects them all)</source>
        <translation>批准选中的问题（Ctrl+A 全选）</translation>
    </message>
    <message>
        <source>Removes the selected questions</source>
        <translation>删除选中的问题</translation>
    </message>
    <message>
        <source>Drafting questions for %1 from its videos&apos; caption and the prompt…</source>
        <translation>正在根据 %1 的视频描述和提示词起草问题…</translation>
    </message>
    <message>
        <source>The scores could not be computed: %1</source>
        <translation>无法计算分数：%1</translation>
    </message>
    <message>
        <source>Type your annotator name above: a final answer records who gave it.</source>
        <translation>请先在上方输入标注者名称：最终答案会记录是谁给出的。</translation>
    </message>
    <message>
        <source>%1 answered this item; its final answer must come from another reviewer</source>
        <translation>%1 已回答过此项；其最终答案必须由另一位审核者给出</translation>
    </message>
    <message>
        <source>Choose a dimension…</source>
        <translation>选择维度…</translation>
    </message>
    <message>
        <source>Choose the question&apos;s dimension first: what it judges (semantic alignment, physical laws, …)</source>
        <translation>请先选择问题的维度：它评判的方面（语义对齐、物理规律……）</translation>
    </message>
    <message>
        <source>No approved questions to answer yet: write or draft them on the Questions page, then approve them.</source>
        <translation>还没有已批准的问题可回答：请在“问题”页编写或起草问题，然后批准它们。</translation>
    </message>
    <message>
        <source>%1 · prompt: %2</source>
        <translation>%1 · 提示词：%2</translation>
    </message>
    <message>
        <source>Item %1 of %2 · %3 answered by %4</source>
        <translation>第 %1 / %2 项 · %4 已回答 %3 项</translation>
    </message>
    <message>
        <source>Known answer</source>
        <translation>已知答案</translation>
    </message>
    <message>
        <source>Make this item a gold item: its known answer measures each annotator&apos;s accuracy (Scores)</source>
        <translation>将此项设为金标准项：其已知答案用于衡量每位标注者的准确率（见“评分”）</translation>
    </message>
    <message>
        <source>Yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>No</source>
        <translation>否</translation>
    </message>
    <message>
        <source>Unclear</source>
        <translation>不确定</translation>
    </message>
    <message>
        <source>Known answer: %1</source>
        <translation>已知答案：%1</translation>
    </message>
    <message>
        <source>Not a gold item</source>
        <translation>不是金标准项</translation>
    </message>
    <message>
        <source>Flag annotators below</source>
        <translation>标记正确率低于</translation>
    </message>
    <message>
        <source>right on gold items</source>
        <translation>（金标准项）的标注者</translation>
    </message>
    <message>
        <source>Generate this prompt</source>
        <translation>生成此提示词</translation>
    </message>
    <message>
        <source>Opens the chosen prompt in Generate; add the result with Library ▸ Add to evaluation</source>
        <translation>在“生成”中打开所选提示词；结果用“作品库 ▸ 加入评测”添加</translation>
    </message>
    <message>
        <source>Choose a prompt first</source>
        <translation>请先选择一个提示词</translation>
    </message>
    <message numerus="yes">
        <source>%1: %n gold answer(s) on %2 simulated video(s)</source>
        <translation>
            <numerusform>%1：%2 个模拟视频上的 %n 个金标准答案</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %2 %3 prompt(s) and %n question(s)</source>
        <translation>
            <numerusform>%1：%2 个 %3 提示词和 %n 个问题</numerusform>
        </translation>
    </message>
    <message>
        <source>Type your name above first: a known answer records who gave it</source>
        <translation>请先在上方输入你的名字：已知答案会记录由谁给出</translation>
    </message>
    <message>
        <source>Item %1 is a gold item: known answer %2</source>
        <translation>第 %1 项为金标准项：已知答案 %2</translation>
    </message>
    <message>
        <source>Item %1 is an ordinary item again</source>
        <translation>第 %1 项已恢复为普通项</translation>
    </message>
    <message>
        <source>Reviewer</source>
        <translation>审核者</translation>
    </message>
    <message>
        <source>Shows the Label page&apos;s Known answer menu, to mark gold items and see their known answers (annotators leave this off)</source>
        <translation>显示“标注”页的“已知答案”菜单，用于标记金标准项并查看其已知答案（标注者请保持关闭）</translation>
    </message>
    <message numerus="yes">
        <source>%n prompt(s) have no video yet, so their questions are not asked: choose one and Generate this prompt.</source>
        <translation>
            <numerusform>%n 个提示词还没有视频，其问题暂不提问：选择一个，然后“生成此提示词”。</numerusform>
        </translation>
    </message>
    <message>
        <source>This project has no videos yet. Add outputs from the Library (select one, then Add to evaluation), import answers with File ▸ Import answers (JSONL)…, or start from a public question set (File ▸ Import HUE question set…) and generate its prompts (Questions ▸ Generate this prompt); then write or draft questions on the Questions page.</source>
        <translation>此项目还没有视频。可在作品库中添加输出（选中一个，然后“加入评测”），用“文件 ▸ 导入答案 (JSONL)…”导入答案，或从公开问题集开始（“文件 ▸ 导入 HUE 问题集…”）并生成其提示词（“问题 ▸ 生成此提示词”）；然后在“问题”页编写或起草问题。</translation>
    </message>
</context>
<context>
    <name>GenerateView</name>
    <message>
        <source>Describe a scene in a sentence, then Upsample it into a structured caption (Ctrl+U)</source>
        <translation>用一句话描述场景，再扩写为结构化描述（Ctrl+U）</translation>
    </message>
    <message>
        <source>Upsample</source>
        <translation>扩写</translation>
    </message>
    <message>
        <source>Rewrite the short prompt into a structured caption with the reasoner (Ctrl+U)</source>
        <translation>用推理器将简短提示词改写为结构化描述（Ctrl+U）</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Queue a job with this caption and these settings (Ctrl+Enter); it starts when the model is free</source>
        <translation>用当前描述和设置将任务加入队列（Ctrl+Enter）；模型空闲时开始运行</translation>
    </message>
    <message>
        <source>Caption</source>
        <translation>描述</translation>
    </message>
    <message>
        <source>Negative prompt</source>
        <translation>反向提示词</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Upsampling gave no caption: %1</source>
        <translation>扩写未得到描述：%1</translation>
    </message>
    <message>
        <source>Seed %1 is kept for the next jobs (seed policy: fixed)</source>
        <translation>后续任务将沿用种子 %1（种子策略：固定）</translation>
    </message>
    <message>
        <source>Write a short prompt first</source>
        <translation>请先输入简短提示词</translation>
    </message>
    <message>
        <source>Load a model first (Model view)</source>
        <translation>请先加载模型（模型工作区）</translation>
    </message>
    <message>
        <source>Upsampling with the reasoner…</source>
        <translation>正在用推理器扩写…</translation>
    </message>
    <message>
        <source>The caption&apos;s JSON has an error; fix it (Raw JSON) or clear it to use the short prompt</source>
        <translation>描述的 JSON 有错误；请修正（原始 JSON），或清空以使用简短提示词</translation>
    </message>
    <message>
        <source>The negative prompt&apos;s JSON has an error; fix it first</source>
        <translation>反向提示词的 JSON 有错误；请先修正</translation>
    </message>
    <message>
        <source>Write a prompt or a caption first</source>
        <translation>请先输入提示词或描述</translation>
    </message>
    <message>
        <source>Not queued: %1</source>
        <translation>未加入队列：%1</translation>
    </message>
    <message>
        <source>Job #%1 updated</source>
        <translation>任务 #%1 已更新</translation>
    </message>
    <message>
        <source>Job #%1 already started; the edit was not applied</source>
        <translation>任务 #%1 已开始；修改未生效</translation>
    </message>
    <message>
        <source>Job #%1 queued</source>
        <translation>任务 #%1 已加入队列</translation>
    </message>
    <message>
        <source>Job #%1 queued; it starts when a model is loaded</source>
        <translation>任务 #%1 已加入队列；加载模型后开始运行</translation>
    </message>
    <message>
        <source>Update job #%1</source>
        <translation>更新任务 #%1</translation>
    </message>
    <message>
        <source>Fix</source>
        <translation>修正</translation>
    </message>
    <message>
        <source>Put the prompt&apos;s words back into the caption (one undoable edit)</source>
        <translation>把提示词中的词放回描述（一次可撤销的编辑）</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>忽略</translation>
    </message>
    <message>
        <source>Upsampled caption ready; edit it in the form or as JSON (Ctrl+Z brings back the previous one)</source>
        <translation>扩写后的描述已就绪；可在表单中或以 JSON 形式编辑（Ctrl+Z 恢复之前的描述）</translation>
    </message>
    <message numerus="yes">
        <source>Upsampled caption has %n problem(s); see below the editor</source>
        <translation>
            <numerusform>扩写后的描述有 %n 个问题；见编辑器下方</numerusform>
        </translation>
    </message>
    <message>
        <source>The model</source>
        <translation>该模型</translation>
    </message>
    <message>
        <source>%1 was made for %2 frames; %3 frames is far beyond it and will not look right</source>
        <translation>%1 是为 %2 帧训练的；%3 帧远超其范围，效果不会好</translation>
    </message>
    <message>
        <source>%1 was made for %2×%3 pictures; %4×%5 is far beyond it</source>
        <translation>%1 是为 %2×%3 的画面训练的；%4×%5 远超其范围</translation>
    </message>
    <message>
        <source>Your prompt and the caption differ: %1.</source>
        <translation>提示词与描述不一致：%1。</translation>
    </message>
    <message>
        <source>The caption now has your prompt&apos;s words (Ctrl+Z undoes it)</source>
        <translation>描述已包含提示词中的词（Ctrl+Z 可撤销）</translation>
    </message>
    <message>
        <source>%1. Press Generate again to queue it anyway.</source>
        <translation>%1。再次点击“生成”仍会加入队列。</translation>
    </message>
    <message>
        <source>The loaded distilled checkpoint runs one conditional pass: no negative prompt is used</source>
        <translation>已加载的蒸馏检查点只运行一次条件推理：不使用负面提示词</translation>
    </message>
    <message>
        <source>Stop the upsampling, or the running job (Esc)</source>
        <translation>停止扩写，或停止正在运行的任务（Esc）</translation>
    </message>
    <message>
        <source>Nothing is running</source>
        <translation>没有正在运行的任务</translation>
    </message>
    <message>
        <source>Stopping job #%1…</source>
        <translation>正在停止任务 #%1…</translation>
    </message>
    <message>
        <source>No caption: Generate sends the short prompt as it is (Upsample writes a caption from it)</source>
        <translation>没有描述：“生成”会原样发送短提示词（“扩写”可据此写出描述）</translation>
    </message>
    <message>
        <source>No negative prompt</source>
        <translation>没有负面提示词</translation>
    </message>
    <message>
        <source>Preset %1</source>
        <translation>预设 %1</translation>
    </message>
    <message>
        <source>Edit job #%1</source>
        <translation>编辑任务 #%1</translation>
    </message>
    <message>
        <source>Restore settings</source>
        <translation>恢复设置</translation>
    </message>
</context>
<context>
    <name>HistoryView</name>
    <message>
        <source>Search your prompts and the captions…</source>
        <translation>搜索提示词和描述…</translation>
    </message>
    <message>
        <source>The selected output&apos;s generation record</source>
        <translation>所选输出的生成记录</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <source>Record</source>
        <translation>记录</translation>
    </message>
    <message>
        <source>Recall</source>
        <translation>复用</translation>
    </message>
    <message>
        <source>Restore this output&apos;s prompt, caption and settings in Generate</source>
        <translation>在“生成”中恢复此输出的提示词、描述和设置</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Compare (B)</source>
        <translation>对比 (B)</translation>
    </message>
    <message>
        <source>Remove from library</source>
        <translation>从素材库移除</translation>
    </message>
    <message>
        <source>Add to evaluation</source>
        <translation>加入评测</translation>
    </message>
    <message>
        <source>Add this output (with its generation record) to the open evaluation project</source>
        <translation>将此输出（连同生成记录）加入当前打开的评测项目</translation>
    </message>
    <message>
        <source>seed %1</source>
        <translation>种子 %1</translation>
    </message>
    <message>
        <source>Select an output</source>
        <translation>请选择一个输出</translation>
    </message>
    <message>
        <source>Finished jobs appear here</source>
        <translation>已完成的任务会显示在这里</translation>
    </message>
    <message>
        <source> · %1 frames</source>
        <translation> · %1 帧</translation>
    </message>
    <message>
        <source>Mode: %1</source>
        <translation>模式：%1</translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>模型：%1</translation>
    </message>
    <message>
        <source>Seed: %1</source>
        <translation>种子：%1</translation>
    </message>
    <message>
        <source>Made: %1</source>
        <translation>生成于：%1</translation>
    </message>
    <message>
        <source>Made: %1, in %2</source>
        <translation>生成于：%1，用时 %2</translation>
    </message>
</context>
<context>
    <name>ImageGrid</name>
    <message>
        <source>Hide (bring it back from Hidden)</source>
        <translation>隐藏（可从“已隐藏”中恢复）</translation>
    </message>
    <message>
        <source>Enlarge; click again to show every picture</source>
        <translation>放大；再次点击显示全部画面</translation>
    </message>
    <message>
        <source>not at this time</source>
        <translation>此刻无画面</translation>
    </message>
    <message>
        <source>Hidden (%1)</source>
        <translation>已隐藏（%1）</translation>
    </message>
    <message>
        <source>Wipe: %1 (left) | %2 (right)</source>
        <translation>划像：%1（左）| %2（右）</translation>
    </message>
    <message>
        <source>Pick two pictures of the same size</source>
        <translation>请选择两幅尺寸相同的画面</translation>
    </message>
    <message>
        <source>Difference |%1 − %2| (×4)</source>
        <translation>差值 |%1 − %2|（×4）</translation>
    </message>
</context>
<context>
    <name>KeyValueView</name>
    <message>
        <source>Property</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>值</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>WorldStudio</source>
        <translation>WorldStudio</translation>
    </message>
    <message>
        <source>The saved queue could not be read (%1); it was kept as %2</source>
        <translation>无法读取已保存的队列（%1）；原文件已保留为 %2</translation>
    </message>
    <message>
        <source>History unavailable: %1</source>
        <translation>历史记录不可用：%1</translation>
    </message>
    <message>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <source>Prompt bar</source>
        <translation>提示词栏</translation>
    </message>
    <message>
        <source>The loaded model, the device it runs on, and its precision (Models workspace)</source>
        <translation>已加载的模型、其运行设备及精度（模型工作区）</translation>
    </message>
    <message>
        <source>no model</source>
        <translation>无模型</translation>
    </message>
    <message>
        <source>Could not load the model: %1</source>
        <translation>无法加载模型：%1</translation>
    </message>
    <message>
        <source>♪ audio clock</source>
        <translation>♪ 音频时钟</translation>
    </message>
    <message>
        <source>silent clock</source>
        <translation>静音时钟</translation>
    </message>
    <message>
        <source>Playing without sound output: %1</source>
        <translation>无声音输出，静音播放：%1</translation>
    </message>
    <message>
        <source>Cannot play: %1</source>
        <translation>无法播放：%1</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <source>Workspaces</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
    <message>
        <source>Captions, settings, the live preview and results</source>
        <translation>描述、设置、实时预览和结果</translation>
    </message>
    <message>
        <source>Robotics</source>
        <translation>机器人</translation>
    </message>
    <message>
        <source>Evaluate</source>
        <translation>评测</translation>
    </message>
    <message>
        <source>Label Yes / No / Unclear questions on generated videos and score them</source>
        <translation>为生成的视频标注 是 / 否 / 不确定 问题并计算得分</translation>
    </message>
    <message>
        <source>Library</source>
        <translation>素材库</translation>
    </message>
    <message>
        <source>Every output with its generation record</source>
        <translation>所有输出及其生成记录</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Load a model and read its card</source>
        <translation>加载模型并查看模型卡</translation>
    </message>
    <message>
        <source>The %1 workspace&apos;s layout is back to its default</source>
        <translation>“%1”工作区的布局已恢复默认</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open &amp;model folder…</source>
        <translation>打开模型文件夹(&amp;M)…</translation>
    </message>
    <message>
        <source>Model folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <source>Open &amp;media…</source>
        <translation>打开媒体(&amp;M)…</translation>
    </message>
    <message>
        <source>Ctrl+Shift+O</source>
        <translation>Ctrl+Shift+O</translation>
    </message>
    <message>
        <source>Open media</source>
        <translation>打开媒体</translation>
    </message>
    <message>
        <source>Media (*.mp4 *.mkv *.webm *.mov *.png *.jpg *.wav)</source>
        <translation>媒体文件 (*.mp4 *.mkv *.webm *.mov *.png *.jpg *.wav)</translation>
    </message>
    <message>
        <source>Queue a request &amp;file…</source>
        <translation>将请求文件加入队列(&amp;F)…</translation>
    </message>
    <message>
        <source>Request JSON</source>
        <translation>请求 JSON</translation>
    </message>
    <message>
        <source>Requests (*.json)</source>
        <translation>请求文件 (*.json)</translation>
    </message>
    <message>
        <source>Evaluation projects (*.db)</source>
        <translation>评测项目 (*.db)</translation>
    </message>
    <message>
        <source>&amp;Import answers (JSONL)…</source>
        <translation>导入答案 (JSONL)(&amp;I)…</translation>
    </message>
    <message>
        <source>Answers</source>
        <translation>答案</translation>
    </message>
    <message>
        <source>Answers (*.jsonl)</source>
        <translation>答案文件 (*.jsonl)</translation>
    </message>
    <message>
        <source>Imported %1</source>
        <translation>已导入 %1</translation>
    </message>
    <message>
        <source>&amp;Export video (MP4)…</source>
        <translation>导出视频 (MP4)(&amp;E)…</translation>
    </message>
    <message>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <source>Export &amp;frames (PNG)…</source>
        <translation>导出帧 (PNG)(&amp;F)…</translation>
    </message>
    <message>
        <source>Export &amp;sound (WAV)…</source>
        <translation>导出声音 (WAV)(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Generate</source>
        <translation>生成(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;Upsample prompt</source>
        <translation>扩写提示词(&amp;U)</translation>
    </message>
    <message>
        <source>Ctrl+U</source>
        <translation>Ctrl+U</translation>
    </message>
    <message>
        <source>&amp;Generate (add to queue)</source>
        <translation>生成（加入队列）(&amp;G)</translation>
    </message>
    <message>
        <source>Ctrl+Return</source>
        <translation>Ctrl+Return</translation>
    </message>
    <message>
        <source>&amp;Cancel running job</source>
        <translation>取消运行中的任务(&amp;C)</translation>
    </message>
    <message>
        <source>Ctrl+.</source>
        <translation>Ctrl+.</translation>
    </message>
    <message>
        <source>&amp;Pause / resume queue</source>
        <translation>暂停 / 恢复队列(&amp;P)</translation>
    </message>
    <message>
        <source>Ctrl+P</source>
        <translation>Ctrl+P</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Reset layout</source>
        <translation>重置布局(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Playback</source>
        <translation>播放(&amp;P)</translation>
    </message>
    <message>
        <source>Play / pause</source>
        <translation>播放 / 暂停</translation>
    </message>
    <message>
        <source>Next frame</source>
        <translation>下一帧</translation>
    </message>
    <message>
        <source>Previous frame</source>
        <translation>上一帧</translation>
    </message>
    <message>
        <source>Close comparison</source>
        <translation>关闭对比</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Ctrl+/</source>
        <translation>Ctrl+/</translation>
    </message>
    <message>
        <source>&amp;User guide</source>
        <translation>用户指南(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;About WorldStudio</source>
        <translation>关于 WorldStudio(&amp;A)</translation>
    </message>
    <message>
        <source>Loading %1 …</source>
        <translation>正在加载 %1 …</translation>
    </message>
    <message>
        <source>Loaded %1 on %2</source>
        <translation>已在 %2 上加载 %1</translation>
    </message>
    <message>
        <source>Only queued jobs can be edited</source>
        <translation>只能编辑排队中的任务</translation>
    </message>
    <message>
        <source>This entry has no request to recall</source>
        <translation>此条目没有可复用的请求</translation>
    </message>
    <message>
        <source>Recalled the caption and settings of %1 (seed %2)</source>
        <translation>已复用 %1 的描述和设置（种子 %2）</translation>
    </message>
    <message>
        <source>Job #%1 queued from %2</source>
        <translation>任务 #%1 已从 %2 加入队列</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Could not add to history: %1</source>
        <translation>无法加入历史记录：%1</translation>
    </message>
    <message>
        <source>Job #%1 done: %2</source>
        <translation>任务 #%1 已完成：%2</translation>
    </message>
    <message>
        <source>Job #%1 failed: %2 — the queue goes on</source>
        <translation>任务 #%1 失败：%2 —— 队列继续运行</translation>
    </message>
    <message>
        <source>Open a result on the stage (Generate) to export it</source>
        <translation>请先在“生成”工作区中打开一个结果，再导出</translation>
    </message>
    <message>
        <source>Export video</source>
        <translation>导出视频</translation>
    </message>
    <message>
        <source>Video (*.mp4)</source>
        <translation>视频 (*.mp4)</translation>
    </message>
    <message>
        <source>Folder for the frames</source>
        <translation>帧的保存文件夹</translation>
    </message>
    <message>
        <source>Export sound</source>
        <translation>导出声音</translation>
    </message>
    <message>
        <source>Sound (*.wav)</source>
        <translation>声音 (*.wav)</translation>
    </message>
    <message>
        <source>Export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message numerus="yes">
        <source>Restored %n queued job(s); they start when a model is loaded</source>
        <translation>
            <numerusform>已恢复 %n 个排队任务；加载模型后开始</numerusform>
        </translation>
    </message>
    <message>
        <source>Added the output to the evaluation project</source>
        <translation>已将该输出加入评测项目</translation>
    </message>
    <message>
        <source>Job #%1 was cancelled</source>
        <translation>任务 #%1 已取消</translation>
    </message>
    <message>
        <source>Robot datasets, trajectory editing, rollouts on one clock, interactive play</source>
        <translation>机器人数据集、轨迹编辑、同一时钟上的推演、交互式操控</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>Load a model first; adapters are merged into a loaded model</source>
        <translation>请先加载模型；适配器会合并到已加载的模型中</translation>
    </message>
    <message>
        <source>The memory settings apply to the next model you load</source>
        <translation>内存设置将用于下一次加载的模型</translation>
    </message>
    <message>
        <source>Queue a &amp;batch (JSONL)…</source>
        <translation>排队一个批处理文件（JSONL）(&amp;B)…</translation>
    </message>
    <message>
        <source>Sample file</source>
        <translation>样本文件</translation>
    </message>
    <message>
        <source>Sample files (*.jsonl *.json)</source>
        <translation>样本文件 (*.jsonl *.json)</translation>
    </message>
    <message>
        <source>Export the queue as a batch (JSONL)…</source>
        <translation>将队列导出为批处理文件（JSONL）…</translation>
    </message>
    <message>
        <source>Sample file for worldstudio-cli batch</source>
        <translation>供 worldstudio-cli batch 使用的样本文件</translation>
    </message>
    <message>
        <source>Sample files (*.jsonl)</source>
        <translation>样本文件 (*.jsonl)</translation>
    </message>
    <message numerus="yes">
        <source>%n job(s) queued from %1</source>
        <translation>
            <numerusform>已从 %1 排队 %n 个任务</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>; %n line(s) refused, the first: %1</source>
        <translation>
            <numerusform>；拒绝了 %n 行，第一行：%1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n queued job(s) written to %1; run them with worldstudio-cli batch</source>
        <translation>
            <numerusform>已将 %n 个排队任务写入 %1；可用 worldstudio-cli batch 运行</numerusform>
        </translation>
    </message>
    <message>
        <source>A server&apos;s address starts with http:// or https://</source>
        <translation>服务器地址须以 http:// 或 https:// 开头</translation>
    </message>
    <message>
        <source>Jobs run on the loaded model</source>
        <translation>任务在已加载的模型上运行</translation>
    </message>
    <message>
        <source>Video jobs run on %1</source>
        <translation>视频任务在 %1 上运行</translation>
    </message>
    <message>
        <source>Send the queue to the &amp;cluster (Slurm)…</source>
        <translation>将队列发送到集群（Slurm）(&amp;C)…</translation>
    </message>
    <message numerus="yes">
        <source>Restored %n queued job(s)</source>
        <translation>
            <numerusform>已恢复 %n 个排队任务</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>(%n of them interrupted and queued again); the queue is paused: Resume queue (Ctrl+P) starts them</source>
        <translation>
            <numerusform>（其中 %n 个曾被中断并重新排队）；队列已暂停：“恢复队列”（Ctrl+P）会启动它们</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Stop (the upsampling or the running job)</source>
        <translation>停止（扩写或正在运行的任务）(&amp;S)</translation>
    </message>
    <message>
        <source>Quit WorldStudio</source>
        <translation>退出 WorldStudio</translation>
    </message>
    <message>
        <source>Job #%1 is running (step %2 of %3).</source>
        <translation>任务 #%1 正在运行（第 %2 步，共 %3 步）。</translation>
    </message>
    <message>
        <source>Job #%1 is running.</source>
        <translation>任务 #%1 正在运行。</translation>
    </message>
    <message>
        <source>Quitting stops it. It stays in the queue and waits for Resume queue at the next start.</source>
        <translation>退出会停止它。它会留在队列中，下次启动时等待“恢复队列”。</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>Keep running</source>
        <translation>继续运行</translation>
    </message>
    <message>
        <source>New e&amp;valuation project…</source>
        <translation>新建评测项目(&amp;V)…</translation>
    </message>
    <message>
        <source>New evaluation project</source>
        <translation>新建评测项目</translation>
    </message>
    <message>
        <source>Cannot replace %1</source>
        <translation>无法替换 %1</translation>
    </message>
    <message>
        <source>&amp;Open evaluation project…</source>
        <translation>打开评测项目(&amp;O)…</translation>
    </message>
    <message>
        <source>Open evaluation project</source>
        <translation>打开评测项目</translation>
    </message>
    <message>
        <source>%1&apos;s recipe is %2. This mode still runs, but it is not what those weights were tuned and shown for.</source>
        <translation>%1 的推荐配方是%2。此模式仍可运行，但这些权重并非为它调校和展示。</translation>
    </message>
    <message>
        <source>unknown export kind %1</source>
        <translation>未知的导出类型 %1</translation>
    </message>
    <message>
        <source>Exporting to %1…</source>
        <translation>正在导出到 %1…</translation>
    </message>
    <message>
        <source>Recall %1</source>
        <translation>调回 %1</translation>
    </message>
    <message>
        <source>Job #%1 running · its progress is on the stage and its card</source>
        <translation>任务 #%1 运行中 · 进度显示在舞台和它的卡片上</translation>
    </message>
    <message>
        <source>Importing %1…</source>
        <translation>正在导入 %1…</translation>
    </message>
    <message>
        <source>Export ans&amp;wers (JSONL)…</source>
        <translation>导出答案 (JSONL)(&amp;W)…</translation>
    </message>
    <message>
        <source>Export answers</source>
        <translation>导出答案</translation>
    </message>
    <message>
        <source>Exporting %1…</source>
        <translation>正在导出 %1…</translation>
    </message>
    <message>
        <source>Export sco&amp;res (CSV or JSON)…</source>
        <translation>导出得分 (CSV 或 JSON)(&amp;R)…</translation>
    </message>
    <message>
        <source>Export scores</source>
        <translation>导出得分</translation>
    </message>
    <message>
        <source>Scores (*.csv *.json)</source>
        <translation>得分 (*.csv *.json)</translation>
    </message>
    <message>
        <source>Prompt from evaluation</source>
        <translation>来自评测的提示词</translation>
    </message>
    <message>
        <source>An evaluation prompt (I2V): choose its image, then Generate</source>
        <translation>评测提示词（I2V）：选择其图像，然后生成</translation>
    </message>
    <message>
        <source>An evaluation prompt: Generate, then add the output to the evaluation from the Library</source>
        <translation>评测提示词：生成后，从作品库把结果加入评测</translation>
    </message>
    <message>
        <source>Import HUE &amp;question set (JSON)…</source>
        <translation>导入 HUE 问题集(&amp;Q)（JSON）…</translation>
    </message>
    <message>
        <source>HUE question set</source>
        <translation>HUE 问题集</translation>
    </message>
    <message>
        <source>Question sets (*.json)</source>
        <translation>问题集 (*.json)</translation>
    </message>
    <message>
        <source>Import simulated episodes as &amp;gold items…</source>
        <translation>导入模拟片段作为金标准项(&amp;G)…</translation>
    </message>
    <message>
        <source>Pico World episodes</source>
        <translation>Pico World 片段</translation>
    </message>
    <message>
        <source>Nothing was imported</source>
        <translation>未导入任何内容</translation>
    </message>
    <message>
        <source>%1 was not imported.</source>
        <translation>%1 未被导入。</translation>
    </message>
</context>
<context>
    <name>ModeNames</name>
    <message>
        <source>Text → image</source>
        <translation>文本 → 图像</translation>
    </message>
    <message>
        <source>Text → video</source>
        <translation>文本 → 视频</translation>
    </message>
    <message>
        <source>Image → video</source>
        <translation>图像 → 视频</translation>
    </message>
    <message>
        <source>Video → video (extend)</source>
        <translation>视频 → 视频（延长）</translation>
    </message>
    <message>
        <source>Transfer (control maps)</source>
        <translation>迁移（控制图）</translation>
    </message>
    <message>
        <source>Forward dynamics (actions → video)</source>
        <translation>正向动力学（动作 → 视频）</translation>
    </message>
    <message>
        <source>Inverse dynamics (video → actions)</source>
        <translation>逆向动力学（视频 → 动作）</translation>
    </message>
    <message>
        <source>Policy (picture → actions and video)</source>
        <translation>策略（图像 → 动作和视频）</translation>
    </message>
    <message>
        <source>One picture from a caption</source>
        <translation>根据描述生成一张图像</translation>
    </message>
    <message>
        <source>A video, with sound when the model makes it, from a caption</source>
        <translation>根据描述生成视频（模型支持时附带声音）</translation>
    </message>
    <message>
        <source>A video that starts from your picture</source>
        <translation>以你的图像为起点的视频</translation>
    </message>
    <message>
        <source>A video that continues your clip</source>
        <translation>接续你的片段的视频</translation>
    </message>
    <message>
        <source>A video that follows an edge or blur map of your video</source>
        <translation>遵循你视频的边缘图或模糊图的视频</translation>
    </message>
    <message>
        <source>What the camera sees when the robot or camera follows your actions</source>
        <translation>机器人或相机执行你的动作时，相机所拍到的画面</translation>
    </message>
    <message>
        <source>The actions that explain your video</source>
        <translation>能解释你的视频的动作</translation>
    </message>
    <message>
        <source>The actions to take from a first picture, and the video they lead to</source>
        <translation>从首张图像出发应执行的动作，以及由此产生的视频</translation>
    </message>
</context>
<context>
    <name>ModelView</name>
    <message>
        <source>Open model folder…</source>
        <translation>打开模型文件夹…</translation>
    </message>
    <message>
        <source>Use the built-in model</source>
        <translation>使用内置模型</translation>
    </message>
    <message>
        <source>Cancel loading</source>
        <translation>取消加载</translation>
    </message>
    <message>
        <source>Model folder (Hugging Face snapshot layout)</source>
        <translation>模型文件夹（Hugging Face 快照布局）</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>Hidden size</source>
        <translation>隐藏层维度</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Dtype</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <source>Weights in memory</source>
        <translation>内存中的权重</translation>
    </message>
    <message>
        <source>about %1 MiB</source>
        <translation>约 %1 MiB</translation>
    </message>
    <message>
        <source>Video VAE</source>
        <translation>视频 VAE</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no (latents only)</source>
        <translation>否（仅潜变量）</translation>
    </message>
    <message>
        <source>Sound decoder</source>
        <translation>声音解码器</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>LoRA adapters</source>
        <translation>LoRA 适配器</translation>
    </message>
    <message>
        <source>Apply to the model</source>
        <translation>应用到模型</translation>
    </message>
    <message>
        <source>Reloads the model with these adapters merged into its weights; the files stay as they are</source>
        <translation>重新加载模型并将这些适配器合并到其权重中；文件本身保持不变</translation>
    </message>
    <message>
        <source>%1 × %2 (rank %3, %4 weights)</source>
        <translation>%1 × %2（秩 %3，%4 个权重）</translation>
    </message>
    <message>
        <source>Sampling</source>
        <translation>采样</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Split the towers: the text tower only for reading the prompt</source>
        <translation>拆分双塔：文本塔仅用于读取提示词</translation>
    </message>
    <message>
        <source>The understanding tower reads the prompt, then leaves memory before the generation tower denoises; it is read again for the next prompt. The result is the same, bit for bit</source>
        <translation>理解塔读取提示词后即离开内存，然后生成塔开始去噪；下一个提示词时会重新读取。结果逐位相同</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>Device memory for the weights: layers that do not fit stay in host memory and are copied in one at a time; the VAE plans its decode within what is left</source>
        <translation>权重可用的设备内存：放不下的层保留在主机内存中，逐层复制到设备；VAE 在剩余内存内规划解码</translation>
    </message>
    <message>
        <source>the free memory</source>
        <translation>可用内存</translation>
    </message>
    <message>
        <source>from the budget</source>
        <translation>按预算</translation>
    </message>
    <message>
        <source>Layers kept on the device for good; the others are streamed in before they run</source>
        <translation>常驻设备的层数；其余层在运行前逐层传入</translation>
    </message>
    <message>
        <source>Reloads the model with these settings; later loads use them too</source>
        <translation>以这些设置重新加载模型；之后的加载也会使用它们</translation>
    </message>
    <message>
        <source>Memory budget</source>
        <translation>内存预算</translation>
    </message>
    <message>
        <source>Resident layers</source>
        <translation>常驻层数</translation>
    </message>
    <message>
        <source>Memory plan</source>
        <translation>内存方案</translation>
    </message>
    <message>
        <source>Remote engine (vLLM-Omni)</source>
        <translation>远程引擎（vLLM-Omni）</translation>
    </message>
    <message>
        <source>http://host:8000</source>
        <translation>http://host:8000</translation>
    </message>
    <message>
        <source>the server&apos;s model (optional)</source>
        <translation>服务器上的模型（可选）</translation>
    </message>
    <message>
        <source>Run jobs there</source>
        <translation>在服务器上运行任务</translation>
    </message>
    <message>
        <source>Run jobs here</source>
        <translation>在本机运行任务</translation>
    </message>
    <message>
        <source>Jobs run on the loaded model.</source>
        <translation>任务在已加载的模型上运行。</translation>
    </message>
    <message>
        <source>Server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <source>Jobs run on %1.</source>
        <translation>任务在 %1 上运行。</translation>
    </message>
    <message>
        <source>Text → video, image → video, video → video and text → image jobs go to the server; progress is the server&apos;s</source>
        <translation>文本 → 视频、图像 → 视频、视频 → 视频和文本 → 图像任务发往服务器；进度由服务器提供</translation>
    </message>
    <message>
        <source> of %1</source>
        <translation> / 共 %1 层</translation>
    </message>
</context>
<context>
    <name>PlayPanel</name>
    <message>
        <source>Start, then click here and drive with the keys</source>
        <translation>点击开始，然后点击此处用键盘操控</translation>
    </message>
    <message>
        <source>Keys move the end effector (Tab)</source>
        <translation>按键移动末端执行器（Tab）</translation>
    </message>
    <message>
        <source>Start playing</source>
        <translation>开始操控</translation>
    </message>
    <message>
        <source>From the frame at the cursor (or the selected rollout&apos;s, when branching)</source>
        <translation>从光标所在帧开始（分支时为所选推演的帧）</translation>
    </message>
    <message>
        <source>Stop and save</source>
        <translation>停止并保存</translation>
    </message>
    <message>
        <source>W/S forward/back · A/D left/right · Q/E up/down · arrows turn · Space gripper · Tab camera/effector</source>
        <translation>W/S 前进/后退 · A/D 左/右 · Q/E 上/下 · 方向键转向 · 空格 夹爪 · Tab 相机/执行器</translation>
    </message>
    <message>
        <source>Preparing the start frame…</source>
        <translation>正在准备起始帧…</translation>
    </message>
    <message>
        <source>Playing: each key press makes a chunk of %1 actions (%2 s).</source>
        <translation>操控中：每次按键生成一个 %1 个动作的片段（%2 秒）。</translation>
    </message>
    <message>
        <source>chunk %1: %2 s for %3 frames</source>
        <translation>片段 %1：%3 帧用时 %2 秒</translation>
    </message>
    <message numerus="yes">
        <source>%n chunk(s) played; the last took %1 s.</source>
        <translation>
            <numerusform>已操控 %n 个片段；最后一个用时 %1 秒。</numerusform>
        </translation>
    </message>
    <message>
        <source>Generating chunk %1…</source>
        <translation>正在生成片段 %1…</translation>
    </message>
    <message>
        <source>Moving: %1 · keys: %2 · gripper %3</source>
        <translation>移动：%1 · 按键：%2 · 夹爪%3</translation>
    </message>
    <message>
        <source>end effector</source>
        <translation>末端执行器</translation>
    </message>
    <message>
        <source>camera</source>
        <translation>相机</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>closed</source>
        <translation>闭合</translation>
    </message>
    <message>
        <source>open</source>
        <translation>张开</translation>
    </message>
</context>
<context>
    <name>PlayerPanel</name>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Loop</source>
        <translation>循环</translation>
    </message>
    <message>
        <source>Open a result (Library, the queue or File ▸ Open media)</source>
        <translation>打开一个结果（素材库、队列或 文件 ▸ 打开媒体）</translation>
    </message>
    <message>
        <source>Wipe</source>
        <translation>划像对比</translation>
    </message>
    <message>
        <source>Show A and B over one picture with a divider you drag, instead of side by side</source>
        <translation>在同一画面上叠放 A 和 B，用可拖动的分隔线对比，而非并排显示</translation>
    </message>
    <message>
        <source>Close comparison</source>
        <translation>关闭对比</translation>
    </message>
    <message>
        <source>Comparing A with B</source>
        <translation>正在对比 A 与 B</translation>
    </message>
    <message>
        <source>Open…</source>
        <translation>打开…</translation>
    </message>
    <message>
        <source>Previous frame (Left)</source>
        <translation>上一帧（左方向键）</translation>
    </message>
    <message>
        <source>Next frame (Right)</source>
        <translation>下一帧（右方向键）</translation>
    </message>
    <message>
        <source>Play / pause (Space)</source>
        <translation>播放 / 暂停（空格键）</translation>
    </message>
    <message>
        <source>Open media</source>
        <translation>打开媒体</translation>
    </message>
    <message>
        <source>Media (*.mp4 *.mkv *.webm *.mov *.png *.jpg *.wav)</source>
        <translation>媒体文件 (*.mp4 *.mkv *.webm *.mov *.png *.jpg *.wav)</translation>
    </message>
    <message>
        <source>Compare with</source>
        <translation>选择对比对象</translation>
    </message>
    <message>
        <source>Media (*.mp4 *.mkv *.webm *.mov *.png *.jpg)</source>
        <translation>媒体文件 (*.mp4 *.mkv *.webm *.mov *.png *.jpg)</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>frame %1 · dropped %2 · %3</source>
        <translation>第 %1 帧 · 丢帧 %2 · %3</translation>
    </message>
    <message>
        <source>audio clock</source>
        <translation>音频时钟</translation>
    </message>
    <message>
        <source>silent clock</source>
        <translation>静音时钟</translation>
    </message>
    <message>
        <source>Compare (B)…</source>
        <translation>对比 (B)…</translation>
    </message>
    <message>
        <source>Mute</source>
        <translation>静音</translation>
    </message>
    <message>
        <source>Sound: muted</source>
        <translation>声音：已静音</translation>
    </message>
    <message>
        <source>Sound: %1 %</source>
        <translation>声音：%1 %</translation>
    </message>
</context>
<context>
    <name>PreviewStrip</name>
    <message>
        <source>Live preview appears here while a job runs</source>
        <translation>任务运行时，实时预览会显示在这里</translation>
    </message>
    <message>
        <source>step %1 / %2 · %3 it/s · ETA %4:%5</source>
        <translation>第 %1 / %2 步 · %3 it/s · 预计剩余 %4:%5</translation>
    </message>
</context>
<context>
    <name>PromptCheck</name>
    <message>
        <source>the caption says “%1” where your prompt says “%2”</source>
        <translation>描述写的是“%1”，而提示词是“%2”</translation>
    </message>
    <message>
        <source>the caption lacks “%1”</source>
        <translation>描述缺少“%1”</translation>
    </message>
    <message>
        <source>the caption says “%1 %2” where your prompt says “%1 %3”</source>
        <translation>描述写的是“%1 %2”，而提示词是“%1 %3”</translation>
    </message>
    <message>
        <source>the caption says “%1” for the %2 where your prompt says “%3”</source>
        <translation>描述中 %2 是“%1”，而提示词是“%3”</translation>
    </message>
    <message>
        <source>the caption lacks the colour “%1” of the %2</source>
        <translation>描述缺少 %2 的颜色“%1”</translation>
    </message>
    <message>
        <source>the caption lacks the material “%1” of the %2</source>
        <translation>描述缺少 %2 的材质“%1”</translation>
    </message>
    <message>
        <source>the caption lacks the count “%1” of the %2</source>
        <translation>描述缺少 %2 的数量“%1”</translation>
    </message>
    <message>
        <source>the caption lacks “%1 %2”</source>
        <translation>描述缺少“%1 %2”</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>Evaluate: answer Yes / No / Unclear</source>
        <translation>评测：回答 是 / 否 / 不确定</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>WorldStudio user guide</source>
        <translation>WorldStudio 用户指南</translation>
    </message>
    <message>
        <source>The user guide is not installed. It is docs/user-guide.md in the source tree.</source>
        <translation>未安装用户指南。它位于源代码树中的 docs/user-guide.md。</translation>
    </message>
    <message>
        <source>No model is loaded.</source>
        <translation>未加载模型。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;%2 parameters · %3 · %4&lt;br&gt;%5&lt;br&gt;sound: %6</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;&lt;br&gt;参数量 %2 · %3 · %4&lt;br&gt;%5&lt;br&gt;声音：%6</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>About WorldStudio</source>
        <translation>关于 WorldStudio</translation>
    </message>
    <message>
        <source>&lt;h3&gt;WorldStudio %1&lt;/h3&gt;&lt;p&gt;Interactive world generation with Cosmos 3 world models: captions, video with sound, robot actions and human evaluation, in one desktop studio.&lt;/p&gt;&lt;p&gt;&lt;b&gt;Model&lt;/b&gt;&lt;br&gt;%2&lt;/p&gt;&lt;p&gt;&lt;b&gt;Versions&lt;/b&gt;&lt;br&gt;%3&lt;/p&gt;</source>
        <translation>&lt;h3&gt;WorldStudio %1&lt;/h3&gt;&lt;p&gt;基于 Cosmos 3 世界模型的交互式世界生成：描述、带声音的视频、机器人动作与人工评测，尽在一个桌面工作室。&lt;/p&gt;&lt;p&gt;&lt;b&gt;模型&lt;/b&gt;&lt;br&gt;%2&lt;/p&gt;&lt;p&gt;&lt;b&gt;版本&lt;/b&gt;&lt;br&gt;%3&lt;/p&gt;</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <source>%1 is used everywhere after a restart of the studio</source>
        <translation>重启 WorldStudio 后，界面将全部使用 %1</translation>
    </message>
    <message>
        <source>Change caption</source>
        <translation>修改描述</translation>
    </message>
    <message>
        <source>Edit %1</source>
        <translation>编辑 %1</translation>
    </message>
    <message>
        <source>&apos;%1&apos; should be %2</source>
        <translation>“%1”应为 %2</translation>
    </message>
    <message>
        <source>&apos;%1&apos; should be M:SS or M:SS-M:SS</source>
        <translation>“%1”应为 M:SS 或 M:SS-M:SS 格式</translation>
    </message>
    <message>
        <source>line %1, column %2</source>
        <translation>第 %1 行，第 %2 列</translation>
    </message>
    <message>
        <source>Evaluate: next / previous item</source>
        <translation>评测：下一个 / 上一个条目</translation>
    </message>
    <message>
        <source>a whole number</source>
        <translation>整数</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>数字</translation>
    </message>
    <message>
        <source>an object</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>a list</source>
        <translation>列表</translation>
    </message>
    <message>
        <source>text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>multistep (UniPC or Euler), steps and guidance as you set them</source>
        <translation>多步（UniPC 或 Euler），步数和引导强度按你的设置</translation>
    </message>
    <message>
        <source>distilled: %1 fixed steps (sigmas %2), one conditional pass</source>
        <translation>蒸馏：%1 个固定步（sigma %2），一次条件推理</translation>
    </message>
    <message>
        <source>ModelOpt FP8, dequantized on load (W8A16)</source>
        <translation>ModelOpt FP8，加载时反量化（W8A16）</translation>
    </message>
    <message>
        <source>towers split, both kept (the budget holds them)</source>
        <translation>双塔拆分，两者均保留（预算足够容纳）</translation>
    </message>
    <message>
        <source>towers split: text %1 MiB for the prompt, generation %2 MiB for denoising</source>
        <translation>双塔拆分：文本塔 %1 MiB 用于提示词，生成塔 %2 MiB 用于去噪</translation>
    </message>
    <message>
        <source>both towers on the device</source>
        <translation>两个塔均在设备上</translation>
    </message>
    <message>
        <source>%1 of %2 layers resident, the rest streamed</source>
        <translation>%2 层中 %1 层常驻，其余逐层传入</translation>
    </message>
    <message>
        <source>budget %1 MiB</source>
        <translation>预算 %1 MiB</translation>
    </message>
    <message>
        <source>over the budget: even streamed, denoising holds %1 MiB of weights</source>
        <translation>超出预算：即使全部流式加载，去噪时权重仍占 %1 MiB</translation>
    </message>
</context>
<context>
    <name>QueueView</name>
    <message>
        <source>queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>No jobs yet: Generate (Ctrl+Enter) adds one here</source>
        <translation>暂无任务：点击“生成”（Ctrl+Enter）会在此添加任务</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <source>Output / error</source>
        <translation>输出 / 错误</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>Move up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Move down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Load a queued job into Generate and update it there</source>
        <translation>将排队中的任务载入“生成”，并在那里更新</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Queue a failed or cancelled job again</source>
        <translation>将失败或已取消的任务重新加入队列</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancel all</source>
        <translation>全部取消</translation>
    </message>
    <message>
        <source>Pause queue</source>
        <translation>暂停队列</translation>
    </message>
    <message>
        <source>The running job finishes; no new one starts</source>
        <translation>正在运行的任务会继续完成；不再启动新任务</translation>
    </message>
    <message>
        <source>Clear finished</source>
        <translation>清除已结束</translation>
    </message>
    <message>
        <source>Remove done, failed and cancelled jobs from the list</source>
        <translation>从列表中移除已完成、失败和已取消的任务</translation>
    </message>
    <message>
        <source> (interrupted)</source>
        <translation> (已中断)</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Resume queue</source>
        <translation>恢复队列</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source> · seed %1</source>
        <translation> · 种子 %1</translation>
    </message>
    <message>
        <source>More</source>
        <translation>更多</translation>
    </message>
    <message>
        <source>Send to the cluster…</source>
        <translation>发送到集群…</translation>
    </message>
    <message>
        <source>Show the jobs as table rows instead of cards</source>
        <translation>以表格行而不是卡片显示任务</translation>
    </message>
</context>
<context>
    <name>RequestSchema</name>
    <message>
        <source>FPS</source>
        <translation>帧率</translation>
    </message>
    <message>
        <source>Frames per second of the video (the caption says it too)</source>
        <translation>视频每秒帧数（描述中也会写明）</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Denoising steps: more is slower and usually cleaner</source>
        <translation>去噪步数：越多越慢，通常也越干净</translation>
    </message>
    <message>
        <source>Guidance</source>
        <translation>引导强度</translation>
    </message>
    <message>
        <source>How strongly the prompt steers the result (classifier-free guidance; 1: off)</source>
        <translation>提示词对结果的引导强度（无分类器引导；1 为关闭）</translation>
    </message>
    <message>
        <source>Shift</source>
        <translation>偏移</translation>
    </message>
    <message>
        <source>The flow schedule&apos;s shift: higher spends more steps on the coarse layout</source>
        <translation>流调度的偏移：越高，越多步数用于粗略布局</translation>
    </message>
    <message>
        <source>VAE memory</source>
        <translation>VAE 内存</translation>
    </message>
    <message>
        <source>Memory for decoding (and encoding) the video: it is cut into fewer frames at a time and then into tiles to fit. The model&apos;s budget: what its memory budget leaves, or one latent frame at a time</source>
        <translation>视频解码（及编码）可用的内存：先减少每次处理的帧数，再切分成图块以适应预算。模型的预算：模型内存预算剩余的部分，或每次一个潜变量帧</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>the model&apos;s budget</source>
        <translation>模型的预算</translation>
    </message>
    <message>
        <source>Prompting</source>
        <translation>提示方式</translation>
    </message>
    <message>
        <source>Diffusers pipeline: its system prompt, inverse templates on the negative, no default negative and the folder&apos;s own UniPC schedule, for comparing with results made with diffusers</source>
        <translation>Diffusers 流水线：使用其系统提示词、负面提示词的反向模板、无默认负面提示词以及模型文件夹自带的 UniPC 调度，便于与 diffusers 生成的结果对比</translation>
    </message>
    <message>
        <source>Framework (reference)</source>
        <translation>框架（参考实现）</translation>
    </message>
    <message>
        <source>Diffusers pipeline</source>
        <translation>Diffusers 流水线</translation>
    </message>
    <message>
        <source>Send a plain prompt as a JSON caption</source>
        <translation>将纯文本提示词作为 JSON 描述发送</translation>
    </message>
    <message>
        <source>A prompt that is not JSON goes to the model as {&quot;temporal_caption&quot;: …}; some models (Edge) follow captions better than plain text</source>
        <translation>非 JSON 的提示词以 {&quot;temporal_caption&quot;: …} 的形式发送给模型；部分模型（Edge）对结构化描述的遵循优于纯文本</translation>
    </message>
    <message>
        <source>What the control video shows</source>
        <translation>控制视频所呈现的内容</translation>
    </message>
    <message>
        <source>edge</source>
        <translation>边缘</translation>
    </message>
    <message>
        <source>blur</source>
        <translation>模糊</translation>
    </message>
    <message>
        <source>depth</source>
        <translation>深度</translation>
    </message>
    <message>
        <source>seg</source>
        <translation>分割</translation>
    </message>
    <message>
        <source>How closely the result follows the control video</source>
        <translation>结果跟随控制视频的紧密程度</translation>
    </message>
    <message>
        <source>Video quality</source>
        <translation>视频质量</translation>
    </message>
    <message>
        <source>The MP4&apos;s quality on the reference&apos;s 0-10 scale (H.264 CRF = (1 - q / 10) × 51): 10 is nearly lossless and large, 6.5 (CRF 17) looks the same at a fraction of the size</source>
        <translation>MP4 的质量，采用参考实现的 0–10 刻度（H.264 CRF = (1 - q / 10) × 51）：10 近乎无损但文件很大，6.5（CRF 17）观感相同而体积小得多</translation>
    </message>
    <message>
        <source>Autoguidance</source>
        <translation>自引导</translation>
    </message>
    <message>
        <source>How strongly to steer away from the model folder&apos;s guide, a weaker earlier training round (0: off; only folders with guide/)</source>
        <translation>远离模型文件夹中引导模型（较弱的早期训练轮次）的强度（0 为关闭；仅限含 guide/ 的文件夹）</translation>
    </message>
</context>
<context>
    <name>RoboticsView</name>
    <message>
        <source>No dataset open</source>
        <translation>未打开数据集</translation>
    </message>
    <message>
        <source>Search tasks</source>
        <translation>搜索任务</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Task</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Frames</source>
        <translation>帧</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Up/Down in the workspace moves between episodes</source>
        <translation>在工作区中按上/下键切换片段</translation>
    </message>
    <message>
        <source>Channels</source>
        <translation>通道</translation>
    </message>
    <message>
        <source>Open an episode: its state and action channels appear here</source>
        <translation>打开一个片段后，其状态与动作通道显示在此</translation>
    </message>
    <message>
        <source>Per-frame PSNR and tracked error of the ticked rollouts appear here</source>
        <translation>勾选的推演的逐帧 PSNR 与跟踪误差显示在此</translation>
    </message>
    <message>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>操控</translation>
    </message>
    <message>
        <source>%1 is done.</source>
        <translation>%1 已完成。</translation>
    </message>
    <message>
        <source>Rollout %1 is done.</source>
        <translation>推演 %1 已完成。</translation>
    </message>
    <message>
        <source>Playing: click the picture and drive with the keys.</source>
        <translation>操控中：点击画面并用键盘驾驶。</translation>
    </message>
    <message>
        <source>Saved as %1 in the bundle.</source>
        <translation>已作为 %1 保存到推演包。</translation>
    </message>
    <message>
        <source>The played rollout is saved as %1.</source>
        <translation>操控的推演已保存为 %1。</translation>
    </message>
    <message>
        <source>Could not open the dataset</source>
        <translation>无法打开数据集</translation>
    </message>
    <message>
        <source>Open dataset…</source>
        <translation>打开数据集…</translation>
    </message>
    <message>
        <source>Open a LeRobot dataset folder</source>
        <translation>打开 LeRobot 数据集文件夹</translation>
    </message>
    <message>
        <source>A LeRobot v3.0, v2.1 or v2.0 folder (meta/info.json)</source>
        <translation>LeRobot v3.0、v2.1 或 v2.0 文件夹（meta/info.json）</translation>
    </message>
    <message>
        <source> Pico World seed </source>
        <translation> Pico World 种子 </translation>
    </message>
    <message>
        <source> episodes </source>
        <translation> 片段数 </translation>
    </message>
    <message>
        <source>Open Pico World</source>
        <translation>打开 Pico World</translation>
    </message>
    <message>
        <source>Simulated episodes from consecutive seeds, with their states and events</source>
        <translation>由连续种子模拟的片段，含状态与事件</translation>
    </message>
    <message>
        <source>Open bundle…</source>
        <translation>打开推演包…</translation>
    </message>
    <message>
        <source>Open a rollout bundle</source>
        <translation>打开推演包</translation>
    </message>
    <message>
        <source>Save bundle as…</source>
        <translation>推演包另存为…</translation>
    </message>
    <message>
        <source>Save the rollout bundle into an empty folder</source>
        <translation>将推演包保存到一个空文件夹</translation>
    </message>
    <message>
        <source>Save the edited trajectory</source>
        <translation>保存编辑后的轨迹</translation>
    </message>
    <message>
        <source>Trajectory JSON (*.json)</source>
        <translation>轨迹 JSON (*.json)</translation>
    </message>
    <message>
        <source>Export the edited actions</source>
        <translation>导出编辑后的动作</translation>
    </message>
    <message>
        <source>Action file (*.json)</source>
        <translation>动作文件 (*.json)</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Undo %1</source>
        <translation>撤销：%1</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
    <message>
        <source>Redo %1</source>
        <translation>重做：%1</translation>
    </message>
    <message>
        <source>Side by side</source>
        <translation>并排</translation>
    </message>
    <message>
        <source>Wipe</source>
        <translation>划像</translation>
    </message>
    <message>
        <source>Difference</source>
        <translation>差值</translation>
    </message>
    <message>
        <source>Wipe and difference overlay the ground truth and the selected (or first ticked) rollout</source>
        <translation>划像与差值叠加真实录像和所选（或第一个勾选的）推演</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>Space · J/K/L shuttle · I/O loop in/out · M bookmark · ←/→ step</source>
        <translation>空格 · J/K/L 穿梭 · I/O 循环入/出点 · M 书签 · ←/→ 逐帧</translation>
    </message>
    <message>
        <source>Loop</source>
        <translation>循环</translation>
    </message>
    <message>
        <source>Play round the loop range (I and O set it), or the whole clock</source>
        <translation>在循环区间（I 和 O 设置）内或整个时钟上循环播放</translation>
    </message>
    <message>
        <source>Opening %1…</source>
        <translation>正在打开 %1…</translation>
    </message>
    <message numerus="yes">
        <source>Simulating %n Pico World episode(s)…</source>
        <translation>
            <numerusform>正在模拟 %n 个 Pico World 片段…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n episode(s) · %2 fps%3</source>
        <translation>
            <numerusform>%1 · %n 个片段 · %2 fps%3</numerusform>
        </translation>
    </message>
    <message>
        <source> · embodiment unknown</source>
        <translation> · 本体未知</translation>
    </message>
    <message>
        <source>%1 is open.</source>
        <translation>%1 已打开。</translation>
    </message>
    <message>
        <source>Loading episode %1…</source>
        <translation>正在加载片段 %1…</translation>
    </message>
    <message>
        <source>Episode %1: %2 frames; its actions suggest chunks of %3.</source>
        <translation>片段 %1：%2 帧；其动作建议片段长度为 %3。</translation>
    </message>
    <message>
        <source>Episode %1: %2 frames.</source>
        <translation>片段 %1：%2 帧。</translation>
    </message>
    <message>
        <source>This bundle rolls out %1 episode %2; open that episode to compare with its ground truth.</source>
        <translation>此推演包推演的是 %1 的片段 %2；打开该片段即可与其真实录像比较。</translation>
    </message>
    <message numerus="yes">
        <source>Bundle %1: %n rollout(s).</source>
        <translation>
            <numerusform>推演包 %1：%n 个推演。</numerusform>
        </translation>
    </message>
    <message>
        <source>There is no bundle to save yet: run a rollout first.</source>
        <translation>尚无可保存的推演包：请先运行一次推演。</translation>
    </message>
    <message>
        <source>%1 is not empty; choose an empty folder.</source>
        <translation>%1 不是空的；请选择一个空文件夹。</translation>
    </message>
    <message>
        <source>Could not write %1.</source>
        <translation>无法写入 %1。</translation>
    </message>
    <message>
        <source>The bundle is saved in %1.</source>
        <translation>推演包已保存到 %1。</translation>
    </message>
    <message>
        <source>The edited actions cannot run: %1</source>
        <translation>编辑后的动作无法运行：%1</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>运行中…</translation>
    </message>
    <message>
        <source>Running %1 chunk(s)…</source>
        <translation>正在运行 %1 个片段…</translation>
    </message>
    <message>
        <source>Nothing was played, so nothing was saved.</source>
        <translation>未进行操控，因此没有保存。</translation>
    </message>
    <message>
        <source>The trajectory is saved in %1.</source>
        <translation>轨迹已保存到 %1。</translation>
    </message>
    <message>
        <source>Could not save the trajectory: %1</source>
        <translation>无法保存轨迹：%1</translation>
    </message>
    <message>
        <source>The actions are exported to %1.</source>
        <translation>动作已导出到 %1。</translation>
    </message>
    <message>
        <source>Could not export the actions: %1</source>
        <translation>无法导出动作：%1</translation>
    </message>
    <message>
        <source>%1 %2x</source>
        <translation>%1 %2 倍速</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>正向</translation>
    </message>
    <message>
        <source>Reverse</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>Bookmark %1</source>
        <translation>书签 %1</translation>
    </message>
    <message>
        <source>Bookmarked frame %1, but %2 cannot be written.</source>
        <translation>已为第 %1 帧添加书签，但无法写入 %2。</translation>
    </message>
    <message>
        <source>Bookmarked frame %1.</source>
        <translation>已为第 %1 帧添加书签。</translation>
    </message>
    <message>
        <source>%1 is not a list of bookmarks; they are not shown.</source>
        <translation>%1 不是书签列表；不予显示。</translation>
    </message>
    <message>
        <source>Ground truth · %1</source>
        <translation>真实录像 · %1</translation>
    </message>
    <message>
        <source>%1 · %2 · seed %3</source>
        <translation>%1 · %2 · 种子 %3</translation>
    </message>
    <message>
        <source>%1 (edited)</source>
        <translation>%1（已编辑）</translation>
    </message>
    <message>
        <source>%1 PSNR</source>
        <translation>%1 PSNR</translation>
    </message>
    <message>
        <source>PSNR dB</source>
        <translation>PSNR dB</translation>
    </message>
    <message>
        <source>%1 tracked</source>
        <translation>%1 跟踪</translation>
    </message>
    <message>
        <source>tracked px</source>
        <translation>跟踪 px</translation>
    </message>
    <message>
        <source>recorded camera</source>
        <translation>录制的相机</translation>
    </message>
    <message>
        <source>recorded effector</source>
        <translation>录制的执行器</translation>
    </message>
    <message>
        <source>edited camera</source>
        <translation>编辑的相机</translation>
    </message>
    <message>
        <source>edited effector</source>
        <translation>编辑的执行器</translation>
    </message>
    <message>
        <source>ground truth</source>
        <translation>真实录像</translation>
    </message>
    <message>
        <source>edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <source>camera key</source>
        <translation>相机关键帧</translation>
    </message>
    <message>
        <source>the episode has ended</source>
        <translation>片段已结束</translation>
    </message>
    <message>
        <source>frame %1 of %2</source>
        <translation>第 %1 帧，共 %2 帧</translation>
    </message>
    <message>
        <source>starts at %1</source>
        <translation>从 %1 开始</translation>
    </message>
    <message>
        <source> · PSNR %1 dB</source>
        <translation> · PSNR %1 dB</translation>
    </message>
    <message>
        <source> · tracked %1 px</source>
        <translation> · 跟踪 %1 px</translation>
    </message>
    <message>
        <source>%1 of %2%3</source>
        <translation>%1 / %2%3</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>%1 camera</source>
        <translation>%1 相机</translation>
    </message>
    <message>
        <source>%1 effector</source>
        <translation>%1 执行器</translation>
    </message>
    <message>
        <source>Open a LeRobot dataset (Open dataset…) or simulated episodes (Open Pico World) to see their cameras here</source>
        <translation>打开 LeRobot 数据集（打开数据集…）或模拟片段（打开 Pico World），其相机画面将显示在此</translation>
    </message>
    <message numerus="yes">
        <source>%1: %n bookmark(s) without a frame number are left out.</source>
        <translation>
            <numerusform>%1：%n 个没有帧号的书签未显示。</numerusform>
        </translation>
    </message>
    <message>
        <source>Episode %1: %2 frames; its actions suggest chunks of %3 (the nearest the video takes: %4).</source>
        <translation>片段 %1：%2 帧；其动作建议片段长度为 %3（视频可用的最接近值：%4）。</translation>
    </message>
</context>
<context>
    <name>RoboticsWorker</name>
    <message>
        <source>Pico World, seeds %1–%2</source>
        <translation>Pico World，种子 %1–%2</translation>
    </message>
    <message>
        <source>state</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>gripper closes</source>
        <translation>夹爪闭合</translation>
    </message>
    <message>
        <source>gripper opens</source>
        <translation>夹爪张开</translation>
    </message>
    <message>
        <source>impact</source>
        <translation>碰撞</translation>
    </message>
    <message>
        <source>No model is loaded. Load one in the Models workspace.</source>
        <translation>未加载模型。请在“模型”工作区中加载。</translation>
    </message>
    <message>
        <source>The rollout was stopped.</source>
        <translation>推演已停止。</translation>
    </message>
    <message>
        <source>PSNR</source>
        <translation>PSNR</translation>
    </message>
    <message>
        <source>tracked err</source>
        <translation>跟踪误差</translation>
    </message>
    <message>
        <source>action MSE</source>
        <translation>动作 MSE</translation>
    </message>
    <message>
        <source>consistency</source>
        <translation>一致性</translation>
    </message>
    <message>
        <source>grasped</source>
        <translation>已抓取</translation>
    </message>
    <message>
        <source>missed</source>
        <translation>未抓取</translation>
    </message>
    <message>
        <source>Start playing first.</source>
        <translation>请先开始操控。</translation>
    </message>
    <message>
        <source>position</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>rotation</source>
        <translation>旋转</translation>
    </message>
    <message>
        <source>gripper</source>
        <translation>夹爪</translation>
    </message>
    <message>
        <source>joints</source>
        <translation>关节</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>成功</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>other columns</source>
        <translation>其他列</translation>
    </message>
</context>
<context>
    <name>RolloutPanel</name>
    <message>
        <source>played</source>
        <translation>操控</translation>
    </message>
    <message>
        <source>policy, closed loop</source>
        <translation>策略，闭环</translation>
    </message>
    <message>
        <source>forward dynamics</source>
        <translation>正向动力学</translation>
    </message>
    <message>
        <source>inverse dynamics</source>
        <translation>逆向动力学</translation>
    </message>
    <message>
        <source>policy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Forward dynamics</source>
        <translation>正向动力学</translation>
    </message>
    <message>
        <source>The video the actions produce, from the frame at the cursor</source>
        <translation>从光标所在帧起，动作产生的视频</translation>
    </message>
    <message>
        <source>Inverse dynamics</source>
        <translation>逆向动力学</translation>
    </message>
    <message>
        <source>The actions the episode&apos;s own video implies, plotted against the recorded ones</source>
        <translation>由片段自身视频推断的动作，与录制的动作绘制在一起</translation>
    </message>
    <message>
        <source>Policy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>The model predicts actions and video from the frame</source>
        <translation>模型从该帧预测动作与视频</translation>
    </message>
    <message>
        <source>Policy, closed loop</source>
        <translation>策略，闭环</translation>
    </message>
    <message>
        <source>Pico World executes the predicted actions; its picture starts the next chunk</source>
        <translation>Pico World 执行预测的动作，其画面作为下一片段的起点</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Use the edited actions</source>
        <translation>使用编辑后的动作</translation>
    </message>
    <message>
        <source>Chunks</source>
        <translation>片段数</translation>
    </message>
    <message>
        <source> actions</source>
        <translation> 个动作</translation>
    </message>
    <message>
        <source>Actions per chunk; the chunk&apos;s video has one frame more, which must be 4k + 1</source>
        <translation>每个片段的动作数；片段视频多一帧，帧数必须为 4k + 1</translation>
    </message>
    <message>
        <source>Chunk size</source>
        <translation>片段长度</translation>
    </message>
    <message>
        <source>Denoising steps per chunk</source>
        <translation>每个片段的去噪步数</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Branch from the selected rollout</source>
        <translation>从所选推演分支</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Rollouts</source>
        <translation>推演</translation>
    </message>
    <message>
        <source>Every run is a node; a branch sits under the rollout it started from. Tick rollouts to compare them.</source>
        <translation>每次运行都是一个节点；分支位于其起始推演之下。勾选推演即可比较。</translation>
    </message>
    <message>
        <source>Actions per chunk (the data suggests %1); the chunk&apos;s video has one frame more, which must be 4k + 1</source>
        <translation>每个片段的动作数（数据建议 %1）；片段视频多一帧，帧数必须为 4k + 1</translation>
    </message>
    <message>
        <source> · from %1 at %2</source>
        <translation> · 自 %1 的第 %2 帧</translation>
    </message>
    <message>
        <source>seed %1 · %2 frames from %3</source>
        <translation>种子 %1 · 从 %3 起 %2 帧</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>启动中…</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>chunk %1 of %2 · step %3 of %4</source>
        <translation>片段 %1/%2 · 步 %3/%4</translation>
    </message>
    <message>
        <source>From frame %1 of episode %2.</source>
        <translation>从片段 %2 的第 %1 帧开始。</translation>
    </message>
    <message>
        <source>Open an episode first.</source>
        <translation>请先打开一个片段。</translation>
    </message>
    <message>
        <source>A branch of %1 at its frame %2 (clock frame %3).</source>
        <translation>%1 在其第 %2 帧处的分支（时钟第 %3 帧）。</translation>
    </message>
</context>
<context>
    <name>SettingsPanel</name>
    <message>
        <source>Generate sound</source>
        <translation>生成声音</translation>
    </message>
    <message>
        <source>custom</source>
        <translation>自定义</translation>
    </message>
    <message>
        <source>fixed</source>
        <translation>固定</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>increment</source>
        <translation>递增</translation>
    </message>
    <message>
        <source>picture or video</source>
        <translation>图像或视频</translation>
    </message>
    <message>
        <source>actions (.json or .safetensors)</source>
        <translation>动作（.json 或 .safetensors）</translation>
    </message>
    <message>
        <source>control video</source>
        <translation>控制视频</translation>
    </message>
    <message>
        <source>Save…</source>
        <translation>保存…</translation>
    </message>
    <message>
        <source>Save these settings as a preset</source>
        <translation>将当前设置保存为预设</translation>
    </message>
    <message>
        <source>Preset name</source>
        <translation>预设名称</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>尺寸</translation>
    </message>
    <message>
        <source>Frames</source>
        <translation>帧数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Conditioning picture or video</source>
        <translation>条件图像或视频</translation>
    </message>
    <message>
        <source>Condition</source>
        <translation>条件</translation>
    </message>
    <message>
        <source>Action trajectory</source>
        <translation>动作轨迹</translation>
    </message>
    <message>
        <source>Actions</source>
        <translation>动作</translation>
    </message>
    <message>
        <source>Control video</source>
        <translation>控制视频</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Derive from video…</source>
        <translation>从视频生成…</translation>
    </message>
    <message>
        <source>Compute an edge or blur control video from a source video</source>
        <translation>从源视频计算边缘或模糊控制视频</translation>
    </message>
    <message>
        <source>Control</source>
        <translation>控制</translation>
    </message>
    <message>
        <source>The loaded model has no sound tokenizer</source>
        <translation>已加载的模型没有声音分词器</translation>
    </message>
    <message>
        <source>Mode defaults</source>
        <translation>模式默认值</translation>
    </message>
    <message>
        <source>Quick draft (CPU)</source>
        <translation>快速草稿（CPU）</translation>
    </message>
    <message>
        <source>Preset %1 %2</source>
        <translation>预设 %1：%2</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>→ %1 frames, %2 s</source>
        <translation>→ %1 帧，%2 秒</translation>
    </message>
    <message>
        <source>Source video for the control map</source>
        <translation>控制图的源视频</translation>
    </message>
    <message>
        <source>Computing the %1 map of %2…</source>
        <translation>正在计算 %2 的 %1 控制图…</translation>
    </message>
    <message>
        <source>Control map failed: %1</source>
        <translation>控制图生成失败：%1</translation>
    </message>
    <message>
        <source>Control map written to %1</source>
        <translation>控制图已写入 %1</translation>
    </message>
    <message>
        <source>Fixed by the loaded distilled checkpoint</source>
        <translation>由已加载的蒸馏检查点固定</translation>
    </message>
    <message numerus="yes">
        <source>This distilled checkpoint samples its own %n step(s) in one conditional pass: steps, guidance and shift are its own, and no negative prompt is used.</source>
        <translation>
            <numerusform>此蒸馏检查点以一次条件推理采样其自有的 %n 步：步数、引导强度和偏移均由其决定，且不使用负面提示词。</numerusform>
        </translation>
    </message>
    <message>
        <source>optional: the picture the video ends on</source>
        <translation>可选：视频结束时的画面</translation>
    </message>
    <message>
        <source>Last frame picture</source>
        <translation>最后一帧画面</translation>
    </message>
    <message>
        <source>Pinned at the last latent frame: the video goes from the condition to this picture</source>
        <translation>固定在最后一个潜变量帧：视频从条件画面过渡到这张画面</translation>
    </message>
    <message>
        <source>Last frame</source>
        <translation>最后一帧</translation>
    </message>
    <message>
        <source>× </source>
        <translation>× </translation>
    </message>
    <message>
        <source>Chunks of Frames each, one after another: each chunk after the first continues from the last frames of the one before, so the video is longer than one generation can be</source>
        <translation>按“帧数”逐段生成：第一段之后的每一段都从上一段的最后几帧继续，因此视频可以比单次生成更长</translation>
    </message>
    <message>
        <source>Latent frames each chunk carries over from the one before (1 + 4 (K − 1) video frames)</source>
        <translation>每段从上一段承接的潜在帧数（1 + 4 (K − 1) 个视频帧）</translation>
    </message>
    <message>
        <source>carrying over</source>
        <translation>承接</translation>
    </message>
    <message>
        <source>Length</source>
        <translation>长度</translation>
    </message>
    <message>
        <source>one generation</source>
        <translation>单次生成</translation>
    </message>
    <message>
        <source>The model&apos;s adapters</source>
        <translation>模型的适配器</translation>
    </message>
    <message>
        <source>Untick to give this job adapters of its own: they are applied on the fly, beside the loaded weights, and the model stays as it is</source>
        <translation>取消勾选可为此任务单独指定适配器：它们在运行时叠加在已加载的权重之上，模型本身保持不变</translation>
    </message>
    <message>
        <source>LoRA</source>
        <translation>LoRA</translation>
    </message>
    <message>
        <source>The model&apos;s adapters (none)</source>
        <translation>模型的适配器（无）</translation>
    </message>
    <message>
        <source>The model&apos;s adapters (%1)</source>
        <translation>模型的适配器（%1）</translation>
    </message>
    <message>
        <source>Reuse steps that change little</source>
        <translation>复用变化很小的步</translation>
    </message>
    <message>
        <source>The framework&apos;s diffusion cache (SeaCache): a step whose noisy picture changed little since the last full step reuses the model&apos;s last change instead of running it. Faster; close to, not equal to, the uncached result</source>
        <translation>框架的扩散缓存（SeaCache）：若某步的含噪画面自上一次完整计算以来变化很小，则复用模型上一次的变化而不重新计算。更快；结果接近但不等于未缓存的结果</translation>
    </message>
    <message>
        <source>threshold </source>
        <translation>阈值 </translation>
    </message>
    <message>
        <source>Higher skips more steps (faster, further from the uncached result); 0.35 is the framework&apos;s default</source>
        <translation>越高跳过的步越多（更快，但与未缓存结果差距更大）；0.35 为框架默认值</translation>
    </message>
    <message>
        <source>Step cache</source>
        <translation>步缓存</translation>
    </message>
    <message>
        <source>Only edge and blur maps are computed here; a %1 map comes from its own tool</source>
        <translation>这里只计算边缘图和模糊图；%1 图需由其专用工具生成</translation>
    </message>
</context>
<context>
    <name>StageView</name>
    <message>
        <source>Put this seed in the settings and keep it fixed, to vary the prompt with the same noise</source>
        <translation>将此种子填入设置并保持固定，以便在相同噪声下调整提示词</translation>
    </message>
    <message>
        <source>Type an idea in the prompt bar, then Generate (Ctrl+Enter)</source>
        <translation>在提示词栏输入想法，然后点击“生成”（Ctrl+Enter）</translation>
    </message>
    <message>
        <source>Reuse seed %1</source>
        <translation>复用种子 %1</translation>
    </message>
    <message>
        <source>Job #%1 started</source>
        <translation>任务 #%1 已开始</translation>
    </message>
    <message>
        <source>Generating job #%1 · step %2 / %3 · %4 s</source>
        <translation>正在生成任务 #%1 · 第 %2 / %3 步 · %4 秒</translation>
    </message>
    <message>
        <source> in %1 s</source>
        <translation> (用时 %1 秒)</translation>
    </message>
    <message>
        <source>Job #%1 done%2 · seed %3 · %4</source>
        <translation>任务 #%1 已完成%2 · 种子 %3 · %4</translation>
    </message>
    <message>
        <source>Job #%1 failed: %2</source>
        <translation>任务 #%1 失败：%2</translation>
    </message>
    <message>
        <source>Job #%1 was cancelled</source>
        <translation>任务 #%1 已取消</translation>
    </message>
    <message>
        <source>Generating job #%1 · encoding the prompt, then the first step…</source>
        <translation>正在生成任务 #%1 · 编码提示词，随后是第一步…</translation>
    </message>
    <message>
        <source>The recalled output is no longer there:
%1</source>
        <translation>召回的输出已不存在：
%1</translation>
    </message>
    <message>
        <source>Recalled %1 · seed %2 · its file is gone</source>
        <translation>已召回 %1 · 种子 %2 · 文件已不存在</translation>
    </message>
    <message>
        <source>Recalled %1 · seed %2</source>
        <translation>已召回 %1 · 种子 %2</translation>
    </message>
</context>
<context>
    <name>TimelineView</name>
    <message>
        <source>Click or drag to scrub</source>
        <translation>单击或拖动以定位播放位置</translation>
    </message>
</context>
<context>
    <name>TrajectoryEditor</name>
    <message>
        <source>Edit recorded actions</source>
        <translation>编辑录制的动作</translation>
    </message>
    <message>
        <source>Start from the episode&apos;s recorded actions at the cursor</source>
        <translation>从光标处片段录制的动作开始</translation>
    </message>
    <message>
        <source>Start from nothing</source>
        <translation>从零开始</translation>
    </message>
    <message>
        <source>Start at the cursor with every part held still</source>
        <translation>从光标处开始，所有部件保持静止</translation>
    </message>
    <message>
        <source> steps</source>
        <translation> 步</translation>
    </message>
    <message>
        <source>Length</source>
        <translation>长度</translation>
    </message>
    <message>
        <source>No edit yet: the runs use the recorded actions.</source>
        <translation>尚未编辑：运行使用录制的动作。</translation>
    </message>
    <message>
        <source>Camera path</source>
        <translation>相机路径</translation>
    </message>
    <message>
        <source>Metres for dolly, truck, pedestal and zoom; degrees for orbit, pan, tilt and roll</source>
        <translation>推拉、横移、升降和变焦以米计；环绕、摇、俯仰和滚转以度计</translation>
    </message>
    <message>
        <source>Add move</source>
        <translation>添加运动</translation>
    </message>
    <message>
        <source>Move</source>
        <translation>运动</translation>
    </message>
    <message>
        <source>Amount</source>
        <translation>幅度</translation>
    </message>
    <message>
        <source>Easing</source>
        <translation>缓动</translation>
    </message>
    <message>
        <source>Over</source>
        <translation>历时</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>关键帧</translation>
    </message>
    <message>
        <source>x (m)</source>
        <translation>x（米）</translation>
    </message>
    <message>
        <source>y (m)</source>
        <translation>y（米）</translation>
    </message>
    <message>
        <source>z (m)</source>
        <translation>z（米）</translation>
    </message>
    <message>
        <source>pan °</source>
        <translation>摇 °</translation>
    </message>
    <message>
        <source>tilt °</source>
        <translation>俯仰 °</translation>
    </message>
    <message>
        <source>roll °</source>
        <translation>滚转 °</translation>
    </message>
    <message>
        <source>Remove key</source>
        <translation>删除关键帧</translation>
    </message>
    <message>
        <source>Robot actions</source>
        <translation>机器人动作</translation>
    </message>
    <message>
        <source>The channel whose keys you drag on the chart (double-click adds a key, right-click removes one)</source>
        <translation>在图表上拖动其关键帧的通道（双击添加，右键删除）</translation>
    </message>
    <message>
        <source>Channel</source>
        <translation>通道</translation>
    </message>
    <message>
        <source>Open / close the gripper at the cursor</source>
        <translation>在光标处张开/闭合夹爪</translation>
    </message>
    <message>
        <source>Save trajectory…</source>
        <translation>保存轨迹…</translation>
    </message>
    <message>
        <source>The readable trajectory JSON (absolute poses and channels)</source>
        <translation>可读的轨迹 JSON（绝对位姿与通道）</translation>
    </message>
    <message>
        <source>Export actions…</source>
        <translation>导出动作…</translation>
    </message>
    <message>
        <source>The reference&apos;s action file: one row of model-space actions per step</source>
        <translation>参考实现的动作文件：每步一行模型空间动作</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>This episode has no recorded actions of a known embodiment to edit.</source>
        <translation>此片段没有已知本体的录制动作可供编辑。</translation>
    </message>
    <message>
        <source>Open an episode of a known embodiment first.</source>
        <translation>请先打开已知本体的片段。</translation>
    </message>
    <message>
        <source>Camera %1 %2</source>
        <translation>相机 %1 %2</translation>
    </message>
    <message>
        <source>Camera key at %1</source>
        <translation>第 %1 帧的相机关键帧</translation>
    </message>
    <message>
        <source>Remove camera key</source>
        <translation>删除相机关键帧</translation>
    </message>
    <message>
        <source>Move key</source>
        <translation>移动关键帧</translation>
    </message>
    <message>
        <source>Add key</source>
        <translation>添加关键帧</translation>
    </message>
    <message>
        <source>This embodiment has no gripper channel.</source>
        <translation>此本体没有夹爪通道。</translation>
    </message>
    <message>
        <source>Start an edit first.</source>
        <translation>请先开始编辑。</translation>
    </message>
    <message>
        <source>Gripper at %1</source>
        <translation>第 %1 帧的夹爪</translation>
    </message>
    <message numerus="yes">
        <source>Editing %n step(s) from frame %1.</source>
        <translation>
            <numerusform>正在编辑从第 %1 帧起的 %n 步。</numerusform>
        </translation>
    </message>
    <message>
        <source>frame %1 · %2</source>
        <translation>第 %1 帧 · %2</translation>
    </message>
    <message>
        <source>Suggested action chunk: %1 steps (from the actions&apos; autocorrelation)</source>
        <translation>建议的动作片段：%1 步（来自动作的自相关）</translation>
    </message>
    <message>
        <source>No chunk length to suggest: the actions do not vary.</source>
        <translation>无可建议的片段长度：动作没有变化。</translation>
    </message>
    <message>
        <source>✓ Ready to run</source>
        <translation>✓ 可以运行</translation>
    </message>
    <message>
        <source>Orbit</source>
        <translation>环绕</translation>
    </message>
    <message>
        <source>Dolly (in / out)</source>
        <translation>推拉（前/后）</translation>
    </message>
    <message>
        <source>Truck (sideways)</source>
        <translation>横移（左右）</translation>
    </message>
    <message>
        <source>Pedestal (up / down)</source>
        <translation>升降（上/下）</translation>
    </message>
    <message>
        <source>Pan</source>
        <translation>摇</translation>
    </message>
    <message>
        <source>Tilt</source>
        <translation>俯仰</translation>
    </message>
    <message>
        <source>Roll</source>
        <translation>滚转</translation>
    </message>
    <message>
        <source>Zoom</source>
        <translation>变焦</translation>
    </message>
    <message>
        <source>Linear</source>
        <translation>线性</translation>
    </message>
    <message>
        <source>Ease in</source>
        <translation>缓入</translation>
    </message>
    <message>
        <source>Ease out</source>
        <translation>缓出</translation>
    </message>
    <message>
        <source>Ease in and out</source>
        <translation>缓入缓出</translation>
    </message>
    <message>
        <source>Suggested action chunk: %1 steps (from the actions&apos; autocorrelation); the nearest the video takes: %2</source>
        <translation>建议的动作片段：%1 步（来自动作的自相关）；视频可用的最接近值：%2</translation>
    </message>
    <message>
        <source>pan</source>
        <translation>摇</translation>
    </message>
    <message>
        <source>tilt</source>
        <translation>俯仰</translation>
    </message>
    <message>
        <source>roll</source>
        <translation>滚转</translation>
    </message>
    <message>
        <source>Open a dataset or Pico World to edit an episode&apos;s actions.</source>
        <translation>打开数据集或 Pico World 后即可编辑片段的动作。</translation>
    </message>
</context>
</TS>
