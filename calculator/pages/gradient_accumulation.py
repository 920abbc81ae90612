"""Calcolatore della memoria con accumulo del gradiente: E = b·a·g, M = b·A.

Three modes: from a configuration to its effective batch and memory ("diretto");
from a target effective batch and a memory budget to a configuration
("obiettivo"); and the same target on a real GPU ("gpu": its memory less the
model states and a framework reserve is the budget, with the verdict and the
margin). Ready-to-paste framework configs and a chart.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from ..form.glance import margin_tones
from ..form.model import (
    Calculator,
    Feed,
    Field,
    Format,
    Kind,
    Option,
    Outputs,
    Result,
    Values,
    number,
    optional_number,
)
from ..form.numbers import format_decimal, format_integer
from ..llm.accumulation_plan import Plan, largest_micro_batch, plan, plan_exact
from ..llm.framework_configs import PARALLEL_SNIPPETS, SNIPPETS, Parallel
from ..llm.units import GB_PER_GIB, GB_PER_MB
from .accumulation_chart import accumulation_chart
from .gpu_fields import amount, bigger_card, fit_verdict, gpu_memory_field, gpu_presets, reserve_field

DIRECT, TARGET, ON_GPU = "diretto", "obiettivo", "gpu"
# TP, PP, CP, EP: written in the Megatron-LM and torchtitan configs; the batch is planned over data_parallel_gpus only.
MODEL_PARALLEL = {"tensor_parallel": "Parallelismo tensoriale", "pipeline_parallel": "Parallelismo a pipeline",
                  "context_parallel": "Parallelismo di contesto", "expert_parallel": "Parallelismo degli esperti"}
PLANNED = (TARGET, ON_GPU)
# How a framework counts the optimizer steps of an epoch of N samples, with L micro-batches per GPU.
ROUND_UP, ROUND_DOWN, DROP_LAST = "eccesso", "difetto", "drop_last"
STEP_RULES = (
    # The versions: num_update_steps_per_epoch in transformers/trainer.py of the PyPI wheels 4.51.3 (floor) and
    # 4.52.0 (len_dataloader % gradient_accumulation_steps > 0 adds a step: huggingface/transformers#37923).
    Option(ROUND_UP, "Per eccesso (Transformers 4.52 e successive)"),
    Option(ROUND_DOWN, "Per difetto (Transformers fino alla 4.51)"),
    Option(DROP_LAST, "drop_last (dataloader_drop_last=True)"),
)
# What a target mode plans: the target exactly (where some configuration reaches it) or the largest micro-batch.
EXACT, LARGEST = "esatto", "massimo"
GOALS = (
    Option(EXACT, "Il batch desiderato esatto"),
    Option(LARGEST, "Il micro-batch più grande che entra"),
)
UNITS = (Option("MB", "MB", GB_PER_MB), Option("GB", "GB", Decimal(1)), Option("GiB", "GiB", GB_PER_GIB))
IN_GB = {"MB": GB_PER_MB, "GB": Decimal(1), "GiB": GB_PER_GIB}


@dataclass(frozen=True)
class AccumulationInput:
    """The form's values, read once; a field of another mode is None."""

    mode: str
    micro_batch: int | None
    accumulation_steps: int | None
    gpus: int
    activation: Decimal  # per sample, in ``unit``
    unit: str
    memory_budget: Decimal | None
    target: int | None
    goal: str
    gpu_memory_gb: Decimal | None
    model_states_gb: Decimal | None
    reserve_gb: Decimal | None
    dataset_size: int | None
    sequence_length: int | None
    steps_rule: str
    generations: int | None

    @property
    def planned(self) -> bool:
        return self.mode in PLANNED


def _maybe_int(values: Values, key: str) -> int | None:
    value = optional_number(values, key)
    return int(value) if value is not None else None


def read(values: Values) -> AccumulationInput:
    return AccumulationInput(
        mode=str(values["mode"]), micro_batch=_maybe_int(values, "micro_batch"),
        accumulation_steps=_maybe_int(values, "accumulation_steps"), gpus=int(number(values, "data_parallel_gpus")),
        activation=number(values, "activation_per_sample_gb"), unit=str(values["activation_unit"]),
        memory_budget=optional_number(values, "memory_budget"), target=_maybe_int(values, "target_effective_batch"),
        goal=str(values["plan_goal"]),
        gpu_memory_gb=optional_number(values, "gpu_memory_gb"), model_states_gb=optional_number(values, "model_states_gb"),
        reserve_gb=optional_number(values, "reserve_gb"), dataset_size=_maybe_int(values, "dataset_size"),
        sequence_length=_maybe_int(values, "sequence_length"), steps_rule=str(values["steps_rule"]),
        generations=_maybe_int(values, "generations"),
    )


def budget(given: AccumulationInput) -> Decimal:
    """Activation memory per GPU, in the chosen unit: typed in, or what the GPU leaves after the model
    states and the framework reserve."""
    if given.mode == ON_GPU:
        left = (given.gpu_memory_gb or 0) - (given.model_states_gb or 0) - (given.reserve_gb or 0)
        return left / IN_GB[given.unit]
    return given.memory_budget or Decimal(0)


def solve(given: AccumulationInput) -> Plan:
    """The plan of a target mode, for the goal chosen."""
    solver = plan_exact if given.goal == EXACT else plan
    return solver(given.target or 1, budget(given), given.gpus, given.activation)


def configuration(given: AccumulationInput) -> tuple[int, int, str]:
    """Micro-batch and accumulation steps: typed in, or solved from the target."""
    if given.planned:
        solved = solve(given)
        return solved.micro_batch, solved.accumulation_steps, plan_note(solved)
    return given.micro_batch or 1, given.accumulation_steps or 1, ""


def steps_per_epoch(samples: int, micro_batch: int, steps: int, gpus: int, rule: str) -> int:
    """Optimizer steps in one epoch: L = micro-batches per GPU (the distributed sampler pads the last one unless
    drop_last), then the accumulation windows of L, counted by the framework's rule."""
    per_step = micro_batch * gpus
    if rule == DROP_LAST:
        return samples // per_step // steps
    batches = -(-samples // per_step)
    return max(batches // steps, 1) if rule == ROUND_DOWN else -(-batches // steps)


def plan_note(solved: Plan) -> str:
    """What the plan reaches and the other goal's plan; for a plan that misses its target, why, the nearest
    options, and the exact configuration where there is one."""
    if solved.exact:
        return exact_note(solved)
    target, micro, steps, gpus = solved.target, solved.micro_batch, solved.accumulation_steps, solved.gpus
    n = format_integer
    step = micro * gpus
    sentences = []
    if target % gpus:
        sentences.append(
            f"Con {n(gpus)} GPU il batch effettivo è sempre un multiplo di {n(gpus)}:"
            f" {n(target)} non si può raggiungere esattamente."
        )
    else:
        sentences.append(
            f"Con un micro-batch di {n(micro)} su {n(gpus)} GPU il batch effettivo cresce a passi di {n(step)}:"
            f" {n(target)} non è un multiplo di {n(step)}."
        )
    below = step * (steps - 1)
    options = f"{n(below)} con {n(steps - 1)} passi" if below >= step else ""
    above = f"{n(step * steps)} con {n(steps)} passi"
    sentences.append(
        f"Le opzioni più vicine sono {options} (sotto) e {above} (sopra)." if options
        else f"L'opzione più vicina è {above} (sopra)."
    )
    exact = solved.exact_micro_batch
    if exact is not None:
        sentences.append(
            f"Per raggiungere esattamente {n(target)} usa un micro-batch di {n(exact)}"
            f" con {n(target // gpus // exact)} passi di accumulo («Che cosa pianificare»: batch esatto)."
        )
    return " ".join(sentences)


def exact_note(solved: Plan) -> str:
    """A plan that reaches its target: the product, and what the largest micro-batch would do instead."""
    n = format_integer
    micro, steps, gpus, target = solved.micro_batch, solved.accumulation_steps, solved.gpus, solved.target
    said = (f"Il batch effettivo desiderato si raggiunge esattamente: {n(micro)} campioni per GPU × {n(steps)}"
            f" passi × {n(gpus)} GPU = {n(target)}.")
    largest = min(solved.fits, -(-target // gpus))
    if micro >= largest:
        return said
    other_steps = -(-target // (largest * gpus))
    return (f"{said} Nella memoria entrano fino a {n(solved.fits)} campioni per GPU: con il micro-batch più grande"
            f" ({n(largest)}) servono {n(other_steps)} passi e il batch diventa {n(largest * other_steps * gpus)}"
            " («Che cosa pianificare»: micro-batch più grande).")


def compute(values: Values) -> Outputs:
    """Effective batch E = b·a·g and activation memory per GPU M = b·A, plus what follows from them."""
    given = read(values)
    if given.mode == ON_GPU and largest_micro_batch(budget(given), given.activation) < 1:
        return nothing_fits(given)
    b, a, note = configuration(given)
    g = given.gpus
    effective = b * a * g
    memory = b * given.activation
    memory_gb = memory * IN_GB[given.unit]
    completions = given.generations or 1  # GRPO: TRL's sampler repeats each prompt G times
    outputs: dict[str, Decimal | str | None] = {
        "effective_batch": Decimal(effective),
        "activation_memory": memory,
        "activation_memory_gb": memory_gb,  # for the VRAM page's field
        "micro_batch_plan": Decimal(b) if given.planned else None,
        "micro_batch_fit": Decimal(largest_micro_batch(budget(given), given.activation)) if given.planned else None,
        "accumulation_needed": Decimal(a) if given.planned else None,
        **(on_gpu(given, memory_gb) if given.mode == ON_GPU else {"gpu_fit": None, "gpu_headroom_gb": None}),
        "plan_note": note or None,
        "advice": "Non serve: entra così com'è." if given.mode == ON_GPU else None,
        "steps_per_epoch": Decimal(steps_per_epoch(given.dataset_size * completions, b, a, g, given.steps_rule))
        if given.dataset_size is not None else None,
        # GRPO counts completions: E/G prompts per step (a plan that overshoots may not make whole groups).
        "prompts_per_step": Decimal(effective // given.generations)
        if given.generations and effective % given.generations == 0 else None,
        "tokens_per_step": Decimal(given.sequence_length * effective) if given.sequence_length is not None else None,
    }
    outputs.update({key: snippet(b, a, g) for key, snippet in SNIPPETS.items()})
    parallel = Parallel(*(int(value) if isinstance(value := values.get(key), Decimal) else 1 for key in MODEL_PARALLEL))
    outputs.update({key: snippet(b, a, g, parallel) for key, snippet in PARALLEL_SNIPPETS.items()})
    return outputs


def nothing_fits(given: AccumulationInput) -> Outputs:
    """Not even one sample fits the GPU: the verdict, the memory one sample would miss, and what would make it fit;
    no plan, so no batch and no configs."""
    one = given.activation * IN_GB[given.unit]
    outputs: dict[str, Decimal | str | None] = dict.fromkeys(result.id for result in CALCULATOR.results)
    outputs.update(on_gpu(given, one))
    outputs.update(micro_batch_fit=Decimal(0), advice=fit_changes(given))
    return outputs


def fit_changes(given: AccumulationInput) -> str:
    """What would make one sample fit, each change with the figure it must reach: activations per sample
    (checkpointing, a shorter sequence), the model states per GPU (ZeRO-3 or FSDP over more GPUs, an 8-bit
    optimizer, LoRA), a bigger card. This page knows no model, so it says the figure to reach; the VRAM page, which
    knows it, weighs each change's saving (``vram_step.advice``)."""
    gpu, states, reserve = (value or Decimal(0) for value in (given.gpu_memory_gb, given.model_states_gb,
                                                              given.reserve_gb))
    one = given.activation * IN_GB[given.unit]
    n = format_integer
    changes = []
    room = gpu - states - reserve  # for the activations of one sample
    if room > 0:
        shorter = "sequenze più corte"
        if given.sequence_length is not None and (tokens := int(given.sequence_length * room / one)) >= 1:
            shorter += (f" (circa {n(tokens)} token invece di {n(given.sequence_length)}, se le attivazioni crescono"
                        " in proporzione)")
        changes.append(f"attivazioni per campione fino a {amount(room)} (ora {amount(one)}), con il gradient"
                       f" checkpointing o {shorter}")
    room = gpu - reserve - one  # for the model states
    if room > 0:
        # States not sharded yet: ZeRO-3 over k GPUs leaves each about 1/k of them.
        shards = int((states / room).to_integral_value(rounding=ROUND_CEILING))
        spread = f" (se ora non sono divisi, su almeno {n(shards)} GPU)" if shards > 1 else ""
        changes.append(f"stati del modello per GPU fino a {amount(room)} (ora {amount(states)}), con ZeRO-3 o FSDP"
                       f"{spread}, un ottimizzatore a 8 bit o LoRA")
    changes.append(bigger_card(states + reserve + one))
    return "Per far entrare almeno un campione, una di queste: " + "; ".join(changes) + "."


def on_gpu(given: AccumulationInput, memory_gb: Decimal) -> dict[str, Decimal | str | None]:
    """The verdict on the GPU, in the VRAM page's words, and the margin left after the chosen micro-batch."""
    gpu = given.gpu_memory_gb or Decimal(0)
    headroom = gpu - (given.reserve_gb or 0) - (given.model_states_gb or 0) - memory_gb
    return {
        "gpu_fit": fit_verdict(gpu, headroom),  # the plan's micro-batch fits by construction
        "gpu_headroom_gb": headroom,
    }


def check(values: Values) -> dict[str, str]:
    """GRPO's whole groups of completions; in the budget mode one sample must fit in the budget (on a GPU, a sample
    that does not fit is an answer: the verdict and what would make it fit)."""
    given = read(values)
    errors = check_grpo(given)
    if given.mode != TARGET:  # on a GPU, a sample that does not fit is the verdict, with what would make it fit
        return errors
    errors.update(check_budget(given))
    return errors


def check_grpo(given: AccumulationInput) -> dict[str, str]:
    g = given.generations
    if g is None:
        return {}
    if g < 2:
        return {"generations": "Generazioni per prompt: GRPO ne chiede almeno 2 per confrontare le risposte."}
    if given.planned:
        target = given.target or 0
        if target % g:
            return {"generations": (f"Generazioni per prompt: il batch effettivo desiderato ({format_integer(target)})"
                                    f" deve essere un multiplo delle {format_integer(g)} generazioni, perché ogni"
                                    " prompt porta tutte le sue risposte nello stesso batch.")}
        return {}
    b, a, gpus = given.micro_batch or 1, given.accumulation_steps or 1, given.gpus
    if (b * a * gpus) % g:
        return {"generations": (f"Generazioni per prompt: il batch effettivo b · a · g = {format_integer(b * a * gpus)}"
                                f" deve essere un multiplo delle {format_integer(g)} generazioni (in TRL"
                                " generation_batch_size % num_generations == 0): cambia il micro-batch, i passi di"
                                " accumulo o le GPU.")}
    return {}


def check_budget(given: AccumulationInput) -> dict[str, str]:
    activation, unit = given.activation, given.unit
    if largest_micro_batch(budget(given), activation) >= 1:
        return {}
    return {"memory_budget": (
        f"Budget di memoria per GPU: un solo campione richiede {format_decimal(activation)} {unit},"
        f" più dei {format_decimal(budget(given))} {unit} disponibili. Riduci la lunghezza delle sequenze,"
        " usa il checkpointing delle attivazioni o aumenta il budget."
    )}


def chart(values: Values, outputs: Outputs) -> str:
    """The chart of the configuration the results show (typed in, or the plan's)."""
    given = read(values)
    if given.planned and outputs.get("micro_batch_plan") is None:
        return ""  # nothing fits: no configuration to draw
    b = int(number(outputs, "micro_batch_plan")) if given.planned else given.micro_batch or 1
    a = int(number(outputs, "accumulation_needed")) if given.planned else given.accumulation_steps or 1
    return accumulation_chart(b, a, given.gpus, number(outputs, "activation_memory"), given.unit)


CALCULATOR = Calculator(
    id="accumulo-del-gradiente",
    order=10,
    title="Calcolatore della memoria con accumulo del gradiente",
    summary=(
        "Calcola la dimensione effettiva del batch raggiunta con l'accumulo del gradiente"
        " e la memoria delle attivazioni che richiede."
    ),
    mode_field="mode",
    fields=(
        Field(
            id="mode", label="Modalità", default=DIRECT, kind=Kind.CHOICE, group="Modalità",
            options=(Option(DIRECT, "Dalla configurazione al batch effettivo"),
                     Option(TARGET, "Obiettivo: dal batch alla configurazione"),
                     Option(ON_GPU, "Obiettivo con GPU: lo stesso su una GPU")),
            help="Calcola il batch effettivo di una configurazione, oppure la configurazione per un obiettivo:"
                 " con un budget di memoria per le attivazioni, o su una GPU dopo gli stati del modello.",
        ),
        Field(
            id="micro_batch", label="Dimensione del micro-batch", default="4", unit="campioni", group="Batching",
            modes=(DIRECT,),
            help="Campioni elaborati da ogni GPU in un passaggio in avanti e all'indietro (b).",
        ),
        Field(
            id="accumulation_steps", label="Passi di accumulo", default="8", group="Batching", modes=(DIRECT,),
            help="Micro-batch di cui si sommano i gradienti prima di ogni passo dell'ottimizzatore (a).",
        ),
        Field(
            id="target_effective_batch", label="Batch effettivo desiderato", default="512", unit="campioni",
            group="Batching", modes=PLANNED, maximum=Decimal(10_000_000),
            help="Campioni per aggiornamento dei pesi che vuoi raggiungere (E).",
        ),
        Field(
            id="plan_goal", label="Che cosa pianificare", default=EXACT, kind=Kind.CHOICE, group="Batching",
            modes=PLANNED, options=GOALS,
            help="Il batch esatto usa il micro-batch più grande che entra e divide l'obiettivo per GPU: un batch"
                 " effettivo diverso cambia il tasso di apprendimento e la sua pianificazione. Il micro-batch più"
                 " grande fa meno passi di accumulo, ma il batch può superare l'obiettivo.",
        ),
        Field(
            id="data_parallel_gpus", label="GPU con parallelismo dei dati", default="1", unit="GPU",
            group="Batching",
            help="Repliche del modello che elaborano micro-batch diversi in parallelo (g).",
        ),
        *(Field(id=key, label=label, default="1", unit="GPU", group="Parallelismo del modello", maximum=Decimal(1024),
                help="Solo per le configurazioni di Megatron-LM e torchtitan: non aggiunge campioni al batch.")
          for key, label in MODEL_PARALLEL.items()),
        Field(
            id="activation_per_sample_gb", label="Attivazione per campione", default="0,5", kind=Kind.DECIMAL,
            unit="GB", unit_from="activation_unit", group="Memoria", minimum=Decimal(0), exclusive_minimum=True,
            maximum=Decimal(10_000_000),
            help="Memoria delle attivazioni di un singolo campione durante il passaggio all'indietro (A): la stima il"
                 " calcolatore della memoria delle attivazioni.",
        ),
        Field(
            id="activation_unit", label="Unità di misura della memoria", default="GB", kind=Kind.CHOICE,
            group="Memoria", options=UNITS,
            help="MB e GB sono potenze di 10 (10⁶ e 10⁹ byte); GiB è 2³⁰ byte.",
        ),
        Field(
            id="memory_budget", label="Budget di memoria per GPU", default="20", kind=Kind.DECIMAL, unit="GB",
            unit_from="activation_unit", group="Memoria", modes=(TARGET,), minimum=Decimal(0),
            exclusive_minimum=True, maximum=Decimal(100_000_000),
            help="Memoria che ogni GPU può dedicare alle attivazioni.",
        ),
        gpu_memory_field(modes=(ON_GPU,)),
        Field(
            id="model_states_gb", label="Stati del modello per GPU", default="16", kind=Kind.DECIMAL, unit="GB",
            group="GPU", modes=(ON_GPU,), minimum=Decimal(0), maximum=Decimal(100_000),
            help="Pesi, gradienti e stati dell'ottimizzatore che restano su ogni GPU (con ZeRO, la sua parte):"
                 " li calcola il calcolatore della VRAM, che li porta qui con il suo link.",
        ),
        reserve_field(modes=(ON_GPU,)),
        Field(
            id="dataset_size", label="Campioni nel dataset", default="", group="Facoltativi", optional=True,
            maximum=Decimal(10**15), example="100000",
            help="Per calcolare i passi dell'ottimizzatore per epoca. Con GRPO sono i prompt: ognuno conta G volte.",
        ),
        Field(
            id="steps_rule", label="Passi per epoca: regola del framework", default=ROUND_UP, kind=Kind.CHOICE,
            group="Facoltativi", options=STEP_RULES,
            help="Come si contano i passi quando i micro-batch di un'epoca non riempiono l'ultima finestra di accumulo:"
                 " per eccesso l'ultima finestra incompleta fa un passo (anche PyTorch Lightning); per difetto no"
                 " (len_dataloader // gradient_accumulation_steps); con drop_last si scartano il micro-batch e la"
                 " finestra incompleti.",
        ),
        Field(
            id="generations", label="Generazioni per prompt (GRPO)", default="", group="Facoltativi", optional=True,
            maximum=Decimal(100_000), example="8",
            help="num_generations dei trainer GRPO di TRL: il batch conta le risposte, G per ogni prompt.",
        ),
        Field(
            id="sequence_length", label="Lunghezza delle sequenze", default="", unit="token", group="Facoltativi",
            optional=True, example="4096",
            help="Per calcolare i token elaborati a ogni passo dell'ottimizzatore.",
        ),
    ),
    results=(
        Result("gpu_fit", "Entra nella GPU?", format=Format.TEXT, modes=(ON_GPU,)),
        Result("advice", "Per farlo entrare", format=Format.TEXT, modes=(ON_GPU,),
               help="Quando non entra nemmeno un campione: ogni modifica con la cifra da raggiungere."),
        Result("micro_batch_plan", "Micro-batch per GPU del piano", format=Format.COUNT, modes=PLANNED,
               help="Il micro-batch b del piano e delle configurazioni qui sotto."),
        Result("accumulation_needed", "Passi di accumulo necessari", format=Format.COUNT, modes=PLANNED,
               help="I passi a del piano: esattamente il batch desiderato, o almeno quello."),
        Result("micro_batch_fit", "Micro-batch più grande che entra nel budget", format=Format.COUNT,
               modes=PLANNED, help="Quanti campioni entrano nella memoria di una GPU per le attivazioni."),
        Result("effective_batch", "Dimensione effettiva del batch", format=Format.COUNT,
               help="Campioni che contribuiscono a un aggiornamento dei pesi: E = b · a · g."),
        Result("activation_memory", "Memoria delle attivazioni per GPU", "GB", unit_from="activation_unit",
               help="Picco delle attivazioni residenti su ogni GPU: M = b · A."),
        Result("gpu_headroom_gb", "Margine sulla GPU", "GB", modes=(ON_GPU,),
               help="Memoria della GPU meno la riserva, gli stati del modello e le attivazioni M = b · A."),
        Result("plan_note", "Come leggere la configurazione", format=Format.TEXT, modes=PLANNED, primary=False),
        Result("steps_per_epoch", "Passi dell'ottimizzatore per epoca", format=Format.COUNT, primary=False,
               help="Micro-batch per GPU nell'epoca, divisi per i passi di accumulo con la regola scelta."),
        Result("prompts_per_step", "Prompt per passo dell'ottimizzatore (GRPO)", format=Format.COUNT, primary=False,
               help="Il batch effettivo conta le risposte: E diviso le generazioni per prompt."),
        Result("tokens_per_step", "Token per passo dell'ottimizzatore", format=Format.COUNT, primary=False,
               help="Batch effettivo per lunghezza delle sequenze."),
        Result("config_hf", "Hugging Face Transformers (TrainingArguments)", format=Format.CODE, primary=False),
        Result("config_deepspeed", "DeepSpeed (file JSON di configurazione)", format=Format.CODE, primary=False),
        Result("config_lightning", "PyTorch Lightning (Trainer)", format=Format.CODE, primary=False),
        Result("config_accelerate", "Hugging Face Accelerate (Accelerator)", format=Format.CODE, primary=False),
        Result("config_megatron", "Megatron-LM e NeMo (parallelismo e batch)", format=Format.CODE, primary=False),
        Result("config_torchtitan", "torchtitan ([parallelism] del file TOML)", format=Format.CODE, primary=False),
    ),
    compute=compute,
    check=check,
    chart=chart,
    glance=("gpu_fit", "effective_batch", "micro_batch_plan", "accumulation_needed", "activation_memory"),
    tones=margin_tones("gpu_fit", "gpu_headroom_gb", none_fits=("micro_batch_fit",), also=("advice",)),
    presets=gpu_presets(modes=(ON_GPU,)),
    # By use: the batch, the memory and the GPU first; model parallelism (only for two configs' snippets) last.
    layout=tuple((group, ()) for group in ("Modalità", "Batching", "Memoria", "GPU", "Facoltativi")),
    feeds=(
        Feed("vram", "vram-addestramento-llm", "Calcolatore della VRAM, con questa memoria delle attivazioni e queste GPU",
             {"activation_gb": "activation_memory_gb", "gpus": "data_parallel_gpus"}),
        Feed("tempo", "tempo-di-addestramento", "Calcolatore del tempo e del costo, con questo batch effettivo e queste"
             " GPU", {"effective_batch": "effective_batch", "gpus": "data_parallel_gpus",
                      "sequence_length": "sequence_length"}, optional=("sequence_length",)),
    ),
    examples={
        "predefinito": {},
        "quattro_gpu": {"data_parallel_gpus": "4"},
        "obiettivo": {"mode": TARGET, "target_effective_batch": "512", "memory_budget": "20"},
        "obiettivo_esatto": {"mode": TARGET, "target_effective_batch": "480", "memory_budget": "20"},
        "obiettivo_massimo": {"mode": TARGET, "target_effective_batch": "512", "memory_budget": "20",
                              "plan_goal": LARGEST},
        "obiettivo_gpu": {"mode": ON_GPU, "target_effective_batch": "512"},
        # Not one sample fits a 24 GiB card after 23 GB of states: what would make it fit.
        "gpu_non_entra": {"mode": ON_GPU, "gpu_memory_gb": "25,77", "model_states_gb": "23",
                          "activation_per_sample_gb": "1", "sequence_length": "4096"},
        # 1.000 samples, b = 4 on 2 GPUs (125 micro-batches each), 8 accumulation steps: 15,6 windows.
        "epoca_eccesso": {"dataset_size": "1000", "data_parallel_gpus": "2"},
        "epoca_difetto": {"dataset_size": "1000", "data_parallel_gpus": "2", "steps_rule": ROUND_DOWN},
        "epoca_drop_last": {"dataset_size": "1000", "data_parallel_gpus": "2", "steps_rule": DROP_LAST},
        "grpo": {"micro_batch": "8", "accumulation_steps": "4", "data_parallel_gpus": "2", "generations": "8"},
        # The log in huggingface/open-r1#483: 5 498 prompts, 7 GPUs, G = 8, a Transformers before 4.52 (March 2025).
        **{name: {"micro_batch": "8", "accumulation_steps": "4", "data_parallel_gpus": "7", "generations": "8",
                  "dataset_size": "5498", "steps_rule": rule}
           for name, rule in (("grpo_epoca", ROUND_DOWN), ("grpo_epoca_eccesso", ROUND_UP))},
    },
)
