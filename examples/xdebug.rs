use pan_detect::align::Aligner;
use pan_detect::align::params::AlignParams;
use pan_detect::align::seed::Idf;
use pan_detect::align::sentences::Sentences;
use pan_detect::analysis::tokenize::TokenizerParams;

fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let csv = std::fs::read_to_string(format!("{dir}/file_information.csv")).unwrap();
    let mut aligner = Aligner::new(TokenizerParams::default(), AlignParams::default().for_listed_pairs(), None);
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.trim().split(',').collect();
        if f[2] == "orig" {
            continue;
        }
        let read = |n: &str| String::from_utf8_lossy(&std::fs::read(format!("{dir}/{n}")).unwrap()).into_owned();
        let (a, b) = (read(f[0]), read(&format!("orig_task{}.txt", f[1])));
        let (mut sa, mut sb) = (Sentences::default(), Sentences::default());
        aligner.analyse(&a, &mut sa);
        aligner.analyse(&b, &mut sb);
        let mut idf = Idf::default();
        idf.compute(&sa, &sb);
        let mut rare_a: Vec<u64> = sa
            .terms
            .iter()
            .zip(idf.suspicious_ids())
            .filter(|(_, id)| idf.is_rare(**id))
            .map(|(t, _)| t.term)
            .collect();
        rare_a.sort_unstable();
        rare_a.dedup();
        let mut all_b: Vec<u64> = sb.terms.iter().map(|t| t.term).collect();
        all_b.sort_unstable();
        all_b.dedup();
        let mut all_a: Vec<u64> = sa.terms.iter().map(|t| t.term).collect();
        all_a.sort_unstable();
        all_a.dedup();
        let kept = rare_a.iter().filter(|t| all_b.binary_search(t).is_ok()).count();
        let kept_all = all_a.iter().filter(|t| all_b.binary_search(t).is_ok()).count();
        println!(
            "{:<16} {:<6} rare {:>3} kept {:>3} share {:.3} | all {:>3} share {:.3}",
            f[0],
            f[2],
            rare_a.len(),
            kept,
            kept as f32 / rare_a.len().max(1) as f32,
            all_a.len(),
            kept_all as f32 / all_a.len() as f32
        );
    }
}
