"""Golden vectors shared by the native tests and the Pyodide-in-Node tests.

Each case: calculator id, the texts typed (missing fields take defaults), and
the expected response: result texts, or per-field messages.
"""

from __future__ import annotations

from typing import Any

from calculator import get

ACC = "accumulo-del-gradiente"


def request(calculator_id: str, **texts: str) -> dict[str, Any]:
    """A request with the calculator's defaults overridden by ``texts``."""
    return {"calculator": calculator_id, "values": {**get(calculator_id).defaults, **texts}}


# (request, expected results)
RESULTS: list[tuple[dict[str, Any], dict[str, str]]] = [
    # The seed's worked example and its 4-GPU variant.
    (request(ACC), {"effective_batch": "32", "activation_memory": "2 GB"}),
    (request(ACC, data_parallel_gpus="4"), {"effective_batch": "128", "activation_memory": "2 GB"}),
    # Accumulation raises E and leaves M alone.
    (request(ACC, accumulation_steps="16"), {"effective_batch": "64", "activation_memory": "2 GB"}),
    (request(ACC, micro_batch="3", activation_per_sample_gb="0,25"),
     {"effective_batch": "24", "activation_memory": "750 MB"}),
    (request(ACC, micro_batch="1", accumulation_steps="1", activation_per_sample_gb="0.001"),
     {"effective_batch": "1", "activation_memory": "1 MB"}),
    (request(ACC, micro_batch="1024", accumulation_steps="1024", data_parallel_gpus="1"),
     {"effective_batch": "1.048.576", "activation_memory": "512 GB"}),
    # Upper bounds together: exact and readable.
    (request(ACC, micro_batch="1.000.000", accumulation_steps="1000000", data_parallel_gpus="1 000 000",
             activation_per_sample_gb="10000"),
     {"effective_batch": "1.000.000.000.000.000.000", "activation_memory": "10.000.000.000 GB"}),
    (request(ACC, micro_batch=" 8 ", activation_per_sample_gb="1,5"),
     {"effective_batch": "64", "activation_memory": "12 GB"}),
    (request(ACC, micro_batch="7", activation_per_sample_gb="0,333"),
     {"effective_batch": "56", "activation_memory": "2,33 GB"}),
]

# (request, field id, expected message)
ERRORS: list[tuple[dict[str, Any], str, str]] = [
    (request(ACC, micro_batch="abc"), "micro_batch",
     "Dimensione del micro-batch: scrivi un numero, per esempio 4."),
    (request(ACC, micro_batch="2,5"), "micro_batch",
     "Dimensione del micro-batch: deve essere un numero intero, per esempio 4."),
    (request(ACC, micro_batch="0"), "micro_batch", "Dimensione del micro-batch: deve essere almeno 1."),
    (request(ACC, accumulation_steps="-1"), "accumulation_steps", "Passi di accumulo: deve essere almeno 1."),
    (request(ACC, data_parallel_gpus="1000001"), "data_parallel_gpus",
     "GPU con parallelismo dei dati: deve essere al massimo 1.000.000."),
    (request(ACC, activation_per_sample_gb="0"), "activation_per_sample_gb",
     "Attivazione per campione: deve essere maggiore di 0."),
    (request(ACC, activation_per_sample_gb="10000000,5"), "activation_per_sample_gb",
     "Attivazione per campione: deve essere al massimo 10.000.000."),
    (request(ACC, activation_per_sample_gb="1e3"), "activation_per_sample_gb",
     "Attivazione per campione: scrivi un numero, per esempio 0,5."),
    (request(ACC, activation_per_sample_gb="0,1234567"), "activation_per_sample_gb",
     "Attivazione per campione: usa al massimo 6 cifre decimali."),
    (request(ACC, micro_batch="1.00.0"), "micro_batch",
     "Dimensione del micro-batch: numero non valido; per le migliaia usa gruppi di tre cifre"
     " (1.000) e per i decimali la virgola (0,5)."),
    (request(ACC, micro_batch="NaN"), "micro_batch", "Dimensione del micro-batch: scrivi un numero, per esempio 4."),
    (request(ACC, micro_batch="Infinity"), "micro_batch",
     "Dimensione del micro-batch: scrivi un numero, per esempio 4."),
    (request(ACC, micro_batch="9" * 50), "micro_batch", "Dimensione del micro-batch: il valore è troppo lungo."),
    (request(ACC, micro_batch=""), "micro_batch", "Inserisci un valore."),
]

VRAM = "vram-addestramento-llm"
LORA = "parametri-lora"
KV_HEADS_32 = "Teste chiave/valore: devono dividere esattamente le 32 teste di attenzione."
QV_ONLY = {"q_proj": "on", "k_proj": "", "v_proj": "on", "o_proj": "", "gate_proj": "", "up_proj": "", "down_proj": ""}
ALL_MODULES = dict.fromkeys(QV_ONLY, "on")

RESULTS += [
    # ZeRO, arXiv:1910.02054 §3.1: 1.5B parameters with mixed-precision Adam need 24 GB of model states.
    (request(VRAM, parameters_billion="1,5", activation_gb="0"),
     {"per_gpu_gb": "24 GB", "total_gb": "24 GB", "weights_gb": "3 GB", "gradients_gb": "3 GB",
      "optimizer_gb": "18 GB", "activations_gb": "0 GB", "bytes_per_parameter": "16 B"}),
    (request(VRAM),
     {"per_gpu_gb": "114 GB", "total_gb": "114 GB", "weights_gb": "14 GB", "gradients_gb": "14 GB",
      "optimizer_gb": "84 GB", "activations_gb": "2 GB", "bytes_per_parameter": "16 B"}),
    (request(VRAM, gradient_precision="32", activation_gb="0"),
     {"per_gpu_gb": "126 GB", "total_gb": "126 GB", "weights_gb": "14 GB", "gradients_gb": "28 GB",
      "optimizer_gb": "84 GB", "activations_gb": "0 GB", "bytes_per_parameter": "18 B"}),
    (request(VRAM, optimizer="adamw_8bit"),
     {"per_gpu_gb": "72 GB", "total_gb": "72 GB", "weights_gb": "14 GB", "gradients_gb": "14 GB",
      "optimizer_gb": "42 GB", "activations_gb": "2 GB", "bytes_per_parameter": "10 B"}),
    (request(VRAM, optimizer="sgd_momentum", parameters_billion="6,74", activation_gb="0,5"),
     {"per_gpu_gb": "81,38 GB", "total_gb": "81,38 GB", "weights_gb": "13,48 GB", "gradients_gb": "13,48 GB",
      "optimizer_gb": "53,92 GB", "activations_gb": "500 MB", "bytes_per_parameter": "12 B"}),
    (request(VRAM, optimizer="adamw_fp32", parameters_billion="70", activation_gb="10", gpus="8", zero_stage="3"),
     {"per_gpu_gb": "150 GB", "total_gb": "1.130 GB", "weights_gb": "280 GB", "gradients_gb": "280 GB",
      "optimizer_gb": "560 GB", "activations_gb": "10 GB", "bytes_per_parameter": "16 B"}),
    # ZeRO, arXiv:1910.02054 Figure 1: 7.5B parameters on 64 GPUs: 120, 31.4, 16.6 and 1.9 GB per device.
    *[
        (request(VRAM, parameters_billion="7,5", activation_gb="0", gpus="64", zero_stage=stage),
         {"per_gpu_gb": per_gpu, "total_gb": "120 GB", "weights_gb": "15 GB", "gradients_gb": "15 GB",
          "optimizer_gb": "90 GB", "activations_gb": "0 GB", "bytes_per_parameter": "16 B"})
        for stage, per_gpu in (("0", "120 GB"), ("1", "31,41 GB"), ("2", "16,64 GB"), ("3", "1,88 GB"))
    ],
    # PEFT's print_trainable_parameters() on Llama 2 7B with r=8 on q_proj and v_proj:
    # "trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622".
    (request(LORA, **QV_ONLY),
     {"trainable_parameters": "4.194.304", "trainable_percent": "0,0622 %", "adapter_half_mb": "8,39 MB",
      "adapter_full_mb": "16,78 MB", "training_state_mb": "50,33 MB"}),
    # The same on Llama 3 8B (grouped-query attention, 8 key/value heads): 3,407,872 trainable.
    (request(LORA, **QV_ONLY, intermediate_size="14336", kv_heads="8", total_parameters_billion="8,03"),
     {"trainable_parameters": "3.407.872", "trainable_percent": "0,0424 %", "adapter_half_mb": "6,82 MB",
      "adapter_full_mb": "13,63 MB", "training_state_mb": "40,89 MB"}),
    # Hu et al., arXiv:2106.09685 Table 4, GPT-3 175B (96 layers, d_model 12288) with Wq and Wv adapted:
    # 4.7M trainable parameters at r = 1 and 37.7M at r = 8.
    (request(LORA, **QV_ONLY, rank="1", layers="96", hidden_size="12288", intermediate_size="49152",
             attention_heads="96", kv_heads="96", total_parameters_billion="175"),
     {"trainable_parameters": "4.718.592", "trainable_percent": "0,0027 %", "adapter_half_mb": "9,44 MB",
      "adapter_full_mb": "18,87 MB", "training_state_mb": "56,62 MB"}),
    (request(LORA, **QV_ONLY, rank="8", layers="96", hidden_size="12288", intermediate_size="49152",
             attention_heads="96", kv_heads="96", total_parameters_billion=""),
     {"trainable_parameters": "37.748.736", "trainable_percent": "—", "adapter_half_mb": "75,5 MB",
      "adapter_full_mb": "150,99 MB", "training_state_mb": "452,98 MB"}),
    (request(LORA, **ALL_MODULES),
     {"trainable_parameters": "19.988.480", "trainable_percent": "0,296 %", "adapter_half_mb": "39,98 MB",
      "adapter_full_mb": "79,95 MB", "training_state_mb": "239,86 MB"}),
]

ERRORS += [
    (request(VRAM, parameters_billion="0"), "parameters_billion", "Parametri del modello: deve essere maggiore di 0."),
    (request(VRAM, parameters_billion="sette"), "parameters_billion",
     "Parametri del modello: scrivi un numero, per esempio 6,74."),
    (request(VRAM, optimizer="adam"), "optimizer", "Ottimizzatore e precisione: scegli una delle opzioni dell'elenco."),
    (request(VRAM, zero_stage="4"), "zero_stage", "Stadio ZeRO: scegli una delle opzioni dell'elenco."),
    (request(VRAM, activation_gb="-1"), "activation_gb", "Memoria delle attivazioni per GPU: deve essere almeno 0."),
    (request(VRAM, gpus="1,5"), "gpus", "GPU con parallelismo dei dati: deve essere un numero intero, per esempio 1."),
    (request(VRAM, convention="deepspeed", zero_stage="1"), "zero_stage",
     "Stadio ZeRO: gli stimatori di DeepSpeed esistono per gli stadi 2 e 3; per gli stadi 0 e 1 usa la convenzione"
     " dell'articolo ZeRO."),
    (request(VRAM, convention="deepspeed", zero_stage="3", offload_param="on"), "offload_param",
     "Pesi su CPU: DeepSpeed sposta i pesi sulla CPU solo insieme agli stati dell'ottimizzatore; attiva anche"
     " «Ottimizzatore su CPU»."),
    (request(VRAM, convention="deepspeed", zero_stage="2", offload_param="on", offload_optimizer="on"),
     "offload_param", "Pesi su CPU: l'offload dei pesi esiste solo con ZeRO-3."),
    (request(VRAM, convention="deepspeed", zero_stage="3", gpus="12", nodes="5"), "nodes",
     "Nodi: le 12 GPU devono dividersi in parti uguali tra i 5 nodi."),
    (request(VRAM, convention="deepspeed", zero_stage="3", parameters_billion="0,1", largest_layer_million="200"),
     "largest_layer_million", "Parametri dello strato più grande: non possono superare i parametri del modello."),
    (request(LORA, rank="0"), "rank", "Rango r: deve essere almeno 1."),
    (request(LORA, head_dim="0"), "head_dim", "Dimensione di ogni testa: deve essere almeno 1."),
    (request(LORA, kv_heads="64"), "kv_heads", KV_HEADS_32),
    (request(LORA, kv_heads="5"), "kv_heads", KV_HEADS_32),
    (request(LORA, q_proj="", v_proj=""), "q_proj", "Scegli almeno un modulo da adattare."),
    (request(LORA, total_parameters_billion="0"), "total_parameters_billion",
     "Parametri totali del modello: deve essere maggiore di 0."),
    # Targets the architecture does not have: each named, nothing silently falls back.
    (request(LORA, attention_layout="fused"), "q_proj",
     "Query, key e value: con l'attenzione «fusa» sono una sola matrice; scegli «Query, key e value fuse» oppure"
     " imposta l'attenzione separata."),
    (request(LORA, qkv_proj="on"), "qkv_proj",
     "Query, key e value fuse: con l'attenzione separata non esiste una matrice fusa; scegli q_proj, k_proj e v_proj"
     " oppure imposta l'attenzione fusa."),
    (request(LORA, mlp_layout="plain", gate_proj="on"), "gate_proj",
     "Gate dell'MLP: l'MLP semplice (due matrici, come GPT-2, OPT, BLOOM, T5) non ha un gate; adatta up e down."),
    (request(LORA, mlp_layout="gate_up", up_proj="on"), "up_proj",
     "Gate e up: con l'MLP «gate e up fuse» sono una sola matrice; scegli «Gate e up fuse» oppure imposta l'MLP con"
     " gate separato."),
    (request(LORA, gate_up_proj="on"), "gate_up_proj",
     "Gate e up fuse: con l'MLP a tre matrici separate non esiste gate_up_proj; scegli gate_proj e up_proj."),
    (request(LORA, router="on"), "router",
     "Router degli esperti: serve un modello con esperti (MoE): indica quanti esperti ha."),
    (request(LORA, shared_intermediate_size="1408"), "shared_intermediate_size",
     "Esperto condiviso: esiste solo nei modelli con esperti (MoE); indica quanti esperti ha, oppure lascia 0."),
    (request(LORA, use_dora="on", lm_head="on"), "use_dora",
     "DoRA: questo calcolatore la conta solo sugli strati lineari; togli embed_tokens e lm_head oppure DoRA."),
    (request(LORA, experts="-1"), "experts", "Esperti per strato (MoE): deve essere almeno 0."),
    (request(LORA, bias="all", model_biases=""), "model_biases",
     "Bias del modello: con bias=\"all\" PEFT addestra tutti i bias; indica quanti sono (i modelli del catalogo lo"
     " compilano)."),
    (request(LORA, bias="lora_only"), "bias",
     "Bias: con bias=\"lora_only\" si addestrano i bias degli strati adattati, ma con «Bias degli strati lineari:"
     " nessuno» non ce ne sono; scegli dove il modello ha i bias."),
]

TIME = "tempo-di-addestramento"
RESULTS += [
    # Llama 3.1 8B (embedding table left out), 15B tokens of 4096, 8 H100 at 40 % MFU, 2,5 € per GPU-hour.
    (request(TIME), {"flops_per_token_g": "51,47 GFLOP", "tokens_per_second": "7.685,73 token/s",
                     "time_days": "2,82 giorni", "gpu_hours": "542,13 GPU-ore", "cost_eur": "1.355,33 €",
                     "energy_kwh": "379,49 kWh", "mfu_result": "40 %"}),
    (request(TIME, question="scadenza", deadline_days="2"), {"gpus_needed": "12", "time_days": "1,88 giorni"}),
    (request(TIME, method="lora", adapter_million="41,94", tokens_billion="0,1"),
     {"flops_per_token_g": "36,71 GFLOP", "gpu_hours": "2,58 GPU-ore"}),
    (request(TIME, recompute="completo"), {"hfu_percent": "53,33 %", "time_days": "2,82 giorni"}),
    (request(TIME, measured_tokens_per_s="3000", mfu_percent=""), {"mfu_result": "15,61 %"}),
    # GPT-3 175B as its paper counts it (Table D.1: 3.640 PF-days).
    (request(TIME, parameters_billion="174,6", embedding_million="0", attention_flops="", tokens_billion="300"),
     {"pf_days": "3.637,5 PF-giorni"}),
]
ERRORS += [
    (request(TIME, mfu_percent="120"), "mfu_percent", "Utilizzo della GPU (MFU): deve essere al massimo 100."),
    (request(TIME, gpus="0"), "gpus", "GPU: deve essere almeno 1."),
    (request(TIME, price_per_gpu_hour="abc"), "price_per_gpu_hour",
     "Prezzo per GPU-ora: scrivi un numero, per esempio 2,5."),
    (request(TIME, question="scadenza", deadline_days="0"), "deadline_days", "Scadenza: deve essere maggiore di 0."),
    (request(TIME, question="scadenza", deadline_days="-3"), "deadline_days", "Scadenza: deve essere maggiore di 0."),
    (request(TIME, tokens_billion=""), "tokens_billion",
     "Token da elaborare: indica i token, oppure i campioni del dataset (con le epoche e la lunghezza delle sequenze)."),
    (request(TIME, active_parameters_billion="9"), "active_parameters_billion",
     "Parametri attivi per token: non possono essere più dei parametri del modello."),
    (request(TIME, mfu_percent=""), "mfu_percent",
     "MFU: indica l'utilizzo della GPU, oppure i token/s per GPU che hai misurato."),
    (request(TIME, measured_tokens_per_s="30000"), "measured_tokens_per_s",
     "Token/s per GPU misurati: con questo modello corrispondono a un MFU del 156,13 %, oltre il 100 % del picco della"
     " GPU; controlla il picco, i parametri o la misura."),
]
